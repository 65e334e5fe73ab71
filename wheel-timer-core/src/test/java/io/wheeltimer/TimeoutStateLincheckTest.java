package io.wheeltimer;

import java.util.concurrent.TimeUnit;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of a timeout's state machine: users cancel and a racing {@code newTimeout}
 * withdraws, concurrently with the worker (one thread), which takes the handle into the wheel,
 * expires it, or cancels it for {@code stop()}. In every interleaving exactly one of expiry, cancel,
 * stop and withdrawal wins, a cancel in the wheel hands the handle to the worker exactly once, and
 * the states read are those of some sequential order.
 *
 * <p>Slow (about 80 s on 2 cores: the timer's classes are instrumented), so not part of the build:
 * {@code mvn -pl wheel-timer-core test -Dgroups=lincheck -DexcludedGroups=none}.
 */
@Tag("lincheck")
public class TimeoutStateLincheckTest {

    /** Never started: a cancel counts and hands off without waking anything. */
    private static final HashedWheelTimer TIMER =
            new HashedWheelTimer(r -> new Thread(r, "lincheck-unused"), 100, TimeUnit.MILLISECONDS, 8, false);

    private final TimeoutHandle handle = new TimeoutHandle(TIMER.runtime, t -> {}, 1, true);

    @Operation
    public boolean cancel() {
        return handle.cancel();
    }

    /** newTimeout's undo when stop() raced it. */
    @Operation
    public boolean withdraw() {
        return handle.compareAndSetState(TimeoutHandle.PENDING, TimeoutHandle.WITHDRAWN);
    }

    @Operation
    public boolean isCancelled() {
        return handle.isCancelled();
    }

    @Operation
    public boolean isExpired() {
        return handle.isExpired();
    }

    @Operation(nonParallelGroup = "worker")
    public boolean take() {
        return handle.compareAndSetState(TimeoutHandle.PENDING, TimeoutHandle.IN_WHEEL);
    }

    @Operation(nonParallelGroup = "worker")
    public boolean expire() {
        return handle.compareAndSetState(TimeoutHandle.IN_WHEEL, TimeoutHandle.EXPIRED);
    }

    @Operation(nonParallelGroup = "worker")
    public boolean cancelForStop() {
        return handle.cancelForStop();
    }

    @Test
    public void everyInterleavingIsLinearizable() {
        LincheckScenarios.checkEveryInterleaving(getClass());
    }
}
