package io.wheeltimer;

import java.util.ArrayList;
import java.util.List;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of the hand-off stack: producers push concurrently while the worker (one
 * thread: the {@code worker} group) takes everything or a bounded portion. Every interleaving of the
 * generated scenarios must be linearizable against the same class run sequentially: nothing lost,
 * nothing taken twice, push order kept, and "was empty" true for exactly the push that found it so.
 * It is the stack of new timeouts, which drops the handles cancelled before the worker took them.
 */
@Param(name = "id", gen = IntGen.class, conf = "1:9")
public class TimeoutStackLincheckTest {

    private final TimeoutStack stack = new TimeoutStack(true);

    @Operation
    public boolean push(@Param(name = "id") int id) {
        return stack.push(new TimeoutHandle(null, null, id, true));
    }

    /** A timeout cancelled before the worker took it: pushed, never handed over. */
    @Operation
    public boolean pushCancelled(@Param(name = "id") int id) {
        TimeoutHandle handle = new TimeoutHandle(null, null, -id, true);
        handle.compareAndSetState(TimeoutHandle.PENDING, TimeoutHandle.CANCELLED);
        return stack.push(handle);
    }

    @Operation(nonParallelGroup = "worker")
    public List<Long> takeAll() {
        List<Long> taken = new ArrayList<>();
        stack.takeAll(handle -> taken.add(handle.deadlineNanos));
        return taken;
    }

    @Operation(nonParallelGroup = "worker")
    public List<Long> takeTwo() {
        List<Long> taken = new ArrayList<>();
        stack.take(handle -> taken.add(handle.deadlineNanos), 2);
        return taken;
    }

    @Operation(nonParallelGroup = "worker")
    public boolean isEmpty() {
        return stack.isEmpty();
    }

    @Test
    public void everyInterleavingIsLinearizable() {
        LincheckScenarios.checkEveryInterleaving(getClass());
    }
}
