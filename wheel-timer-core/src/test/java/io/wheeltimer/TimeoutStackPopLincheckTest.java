package io.wheeltimer;

import java.util.ArrayList;
import java.util.List;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of the new-timeouts stack with cancels that take a handle back off the
 * top ({@link TimeoutStack#popIfTop}), racing pushes and the worker's takes: a pop takes nothing
 * but its own handle, so no other handle is lost, taken twice or reordered. (Bounded takes are left
 * to {@link TimeoutStackLincheckTest}: how far one gets depends on how many cancelled handles it
 * meets, popped or not, which a sequential run cannot reproduce.)
 *
 * <p>The takes report the plain pushes only: a cancelled handle may rightly be handed over when the
 * take came between its push and its cancel (the worker's compare-and-set then wins and the cancel
 * goes the in-wheel way), which a sequential run of {@code pushThenCancel} never shows. Pushes return
 * nothing for the same reason: whether a push finds the stack empty is a wake-up hint, and a pop that
 * another push got in ahead of is legal; {@link TimeoutStackLincheckTest} checks the hint without pops.
 * {@code TimeoutStackTest} shows that a popped or dropped handle is never handed over.
 */
@Param(name = "id", gen = IntGen.class, conf = "1:9")
public class TimeoutStackPopLincheckTest {

    private final TimeoutStack stack = new TimeoutStack(true);

    @Operation
    public void push(@Param(name = "id") int id) {
        stack.push(new TimeoutHandle(null, null, id, true));
    }

    /** Schedule-then-cancel on one thread: the cancel pops the handle if it is still the top. */
    @Operation
    public void pushThenCancel(@Param(name = "id") int id) {
        TimeoutHandle handle = new TimeoutHandle(null, null, -id, true);
        stack.push(handle);
        handle.compareAndSetState(TimeoutHandle.PENDING, TimeoutHandle.CANCELLED);
        stack.popIfTop(handle);
    }

    @Operation(nonParallelGroup = "worker")
    public List<Long> takeAll() {
        List<Long> taken = new ArrayList<>();
        stack.takeAll(handle -> record(taken, handle));
        return taken;
    }

    private static void record(List<Long> taken, TimeoutHandle handle) {
        if (handle.deadlineNanos > 0) {
            taken.add(handle.deadlineNanos);
        }
    }

    @Test
    public void everyInterleavingIsLinearizable() {
        LincheckScenarios.checkEveryInterleaving(getClass());
    }
}
