package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hand-off stack on one thread: push order, bounded takes, and the new-timeouts stack dropping
 * the handles that ended before the worker took them. {@link TimeoutStackLincheckTest} checks it
 * under concurrency.
 */
class TimeoutStackTest {

    private static TimeoutHandle handle(long id, int state) {
        TimeoutHandle handle = new TimeoutHandle(null, null, id);
        if (state != TimeoutHandle.PENDING) {
            assertThat(handle.compareAndSetState(TimeoutHandle.PENDING, state)).isTrue();
        }
        return handle;
    }

    private static List<Long> takeAll(TimeoutStack stack, int limit) {
        List<Long> taken = new ArrayList<>();
        stack.takeAll(h -> taken.add(h.deadline), limit);
        return taken;
    }

    @Test
    void newTimeoutsStackDropsCancelledAndWithdrawnHandlesAndKeepsPushOrder() {
        TimeoutStack stack = new TimeoutStack(true);
        TimeoutHandle cancelled = handle(2, TimeoutHandle.CANCELLED);
        TimeoutHandle withdrawn = handle(3, TimeoutHandle.WITHDRAWN);
        stack.push(handle(1, TimeoutHandle.PENDING));
        stack.push(cancelled);
        stack.push(withdrawn);
        stack.push(handle(4, TimeoutHandle.PENDING));

        assertThat(takeAll(stack, Integer.MAX_VALUE)).containsExactly(1L, 4L);
        // Dropped handles hold no link into the chain (they would keep it from the GC).
        assertThat(cancelled.linkAcquire()).isNull();
        assertThat(withdrawn.linkAcquire()).isNull();
        assertThat(stack.isEmpty()).isTrue();
    }

    @Test
    void aTakeWhoseHandlesWereAllDroppedStillReportsThatThereWasSomething() {
        TimeoutStack stack = new TimeoutStack(true);
        stack.push(handle(1, TimeoutHandle.CANCELLED));

        List<Long> taken = new ArrayList<>();
        assertThat(stack.takeAll(h -> taken.add(h.deadline), 10)).isTrue(); // the worker looks again soon
        assertThat(taken).isEmpty();
        assertThat(stack.takeAll(h -> taken.add(h.deadline), 10)).isFalse();
        assertThat(stack.push(handle(2, TimeoutHandle.PENDING))).isTrue(); // empty again
    }

    @Test
    void droppingHappensWhenTheChainIsTakenNotWhenItIsHandedOver() {
        TimeoutStack stack = new TimeoutStack(true);
        TimeoutHandle second = handle(2, TimeoutHandle.PENDING);
        stack.push(handle(1, TimeoutHandle.PENDING));
        stack.push(second);
        stack.push(handle(3, TimeoutHandle.PENDING));

        assertThat(takeAll(stack, 1)).containsExactly(1L);
        // Cancelled after the take: still handed over; the worker's compare-and-set then fails.
        assertThat(second.compareAndSetState(TimeoutHandle.PENDING, TimeoutHandle.CANCELLED))
                .isTrue();
        assertThat(takeAll(stack, Integer.MAX_VALUE)).containsExactly(2L, 3L);
    }

    @Test
    void cancelledTimeoutsStackHandsOverEveryHandle() {
        TimeoutStack stack = new TimeoutStack();
        stack.push(handle(1, TimeoutHandle.CANCELLED));
        stack.push(handle(2, TimeoutHandle.CANCELLED));

        assertThat(takeAll(stack, Integer.MAX_VALUE)).containsExactly(1L, 2L);
    }
}
