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
        TimeoutHandle handle = new TimeoutHandle(null, null, id, true);
        if (state != TimeoutHandle.PENDING) {
            assertThat(handle.compareAndSetState(TimeoutHandle.PENDING, state)).isTrue();
        }
        return handle;
    }

    private static List<Long> takeAll(TimeoutStack stack, int limit) {
        List<Long> taken = new ArrayList<>();
        stack.take(h -> taken.add(h.deadlineNanos), limit);
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
        assertThat(stack.take(h -> taken.add(h.deadlineNanos), 10)).isPositive(); // the worker looks again soon
        assertThat(taken).isEmpty();
        assertThat(stack.take(h -> taken.add(h.deadlineNanos), 10)).isZero();
        assertThat(stack.push(handle(2, TimeoutHandle.PENDING))).isTrue(); // empty again
    }

    @Test
    void droppingHappensWhileTheChainIsPutInOrderNotWhenItIsHandedOver() {
        TimeoutStack stack = new TimeoutStack(true);
        TimeoutHandle third = handle(3, TimeoutHandle.PENDING);
        stack.push(handle(1, TimeoutHandle.PENDING));
        stack.push(handle(2, TimeoutHandle.PENDING));
        stack.push(third);

        assertThat(takeAll(stack, 2)).isEmpty(); // visited 3 and 2
        assertThat(takeAll(stack, 2)).containsExactly(1L, 2L); // visited 1: in order, two handed over
        // Cancelled once in order: still handed over; the worker's compare-and-set then fails.
        assertThat(third.compareAndSetState(TimeoutHandle.PENDING, TimeoutHandle.CANCELLED))
                .isTrue();
        assertThat(takeAll(stack, 2)).containsExactly(3L);
    }

    @Test
    void cancelledTimeoutsStackHandsOverEveryHandle() {
        TimeoutStack stack = new TimeoutStack();
        stack.push(handle(1, TimeoutHandle.CANCELLED));
        stack.push(handle(2, TimeoutHandle.CANCELLED));

        assertThat(takeAll(stack, Integer.MAX_VALUE)).containsExactly(1L, 2L);
    }

    @Test
    void aBoundedTakePutsABurstInPushOrderOverSeveralCallsAndHandsOverNothingBeforeTheOldest() {
        TimeoutStack stack = new TimeoutStack(true);
        for (long id = 1; id <= 7; id++) {
            stack.push(handle(id, TimeoutHandle.PENDING));
        }
        List<Long> seen = new ArrayList<>();

        // 7 to put in order, 3 visits per call: the oldest is reached in the third call.
        assertThat(takeAll(stack, 3)).isEmpty();
        stack.push(handle(8, TimeoutHandle.PENDING)); // after the take: waits behind the burst
        stack.forEach(h -> seen.add(h.deadlineNanos));
        assertThat(seen).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L); // upcoming sees them all
        assertThat(stack.isEmpty()).isFalse();
        assertThat(takeAll(stack, 3)).isEmpty();
        assertThat(takeAll(stack, 3)).containsExactly(1L, 2L, 3L);
        assertThat(takeAll(stack, 3)).containsExactly(4L, 5L, 6L);
        assertThat(takeAll(stack, 3)).containsExactly(7L);
        assertThat(takeAll(stack, 3)).containsExactly(8L);
        assertThat(stack.isEmpty()).isTrue();
    }

    @Test
    void anUnboundedTakeFinishesWhatABoundedOneLeftThenTakesTheNewer() {
        TimeoutStack stack = new TimeoutStack(true);
        for (long id = 1; id <= 5; id++) {
            stack.push(handle(id, id == 2 ? TimeoutHandle.CANCELLED : TimeoutHandle.PENDING));
        }
        assertThat(takeAll(stack, 2)).isEmpty();
        stack.push(handle(6, TimeoutHandle.PENDING));

        List<Long> taken = new ArrayList<>();
        assertThat(stack.takeAll(h -> taken.add(h.deadlineNanos))).isTrue();
        assertThat(taken).containsExactly(1L, 3L, 4L, 5L, 6L);
        assertThat(stack.isEmpty()).isTrue();
    }

    @Test
    void aCancelTakesTheTopBackOffAndLeavesAnyOtherHandleToTheTake() {
        TimeoutStack stack = new TimeoutStack(true);
        TimeoutHandle first = handle(1, TimeoutHandle.PENDING);
        TimeoutHandle second = handle(2, TimeoutHandle.PENDING);
        stack.push(first);
        stack.push(second);

        assertThat(stack.popIfTop(first)).isFalse(); // not the top
        assertThat(stack.popIfTop(second)).isTrue();
        assertThat(stack.popIfTop(second)).isFalse(); // no longer on the stack
        assertThat(stack.popIfTop(first)).isTrue();
        assertThat(stack.isEmpty()).isTrue();
        assertThat(stack.push(handle(3, TimeoutHandle.PENDING))).isTrue(); // empty again

        assertThat(takeAll(stack, Integer.MAX_VALUE)).containsExactly(3L);
    }

    @Test
    void aHandleTakenByTheWorkerCannotBePopped() {
        TimeoutStack stack = new TimeoutStack(true);
        TimeoutHandle handle = handle(1, TimeoutHandle.PENDING);
        stack.push(handle);

        assertThat(takeAll(stack, Integer.MAX_VALUE)).containsExactly(1L);
        assertThat(stack.popIfTop(handle)).isFalse();
        assertThat(stack.isEmpty()).isTrue();
    }

    @Test
    void aTakeReportsItsWorkVisitsPlusHandOvers() {
        TimeoutStack stack = new TimeoutStack(true);
        stack.push(handle(1, TimeoutHandle.PENDING));
        stack.push(handle(2, TimeoutHandle.CANCELLED));
        stack.push(handle(3, TimeoutHandle.PENDING));

        assertThat(stack.take(h -> {}, 2)).isEqualTo(2); // two visited, the oldest not reached
        assertThat(stack.take(h -> {}, 2)).isEqualTo(1 + 2); // one visited, two handed over
        assertThat(stack.take(h -> {}, 2)).isZero();
    }
}
