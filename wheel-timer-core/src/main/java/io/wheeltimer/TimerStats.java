package io.wheeltimer;

import java.time.Duration;

/**
 * One snapshot of a {@link HashedWheelTimer}'s counts, taken together; {@code pending == scheduled -
 * expired - cancelled} whenever no {@code newTimeout} is in flight. All counts start at zero and, but
 * for {@code pending}, only grow.
 *
 * @param pending timeouts scheduled and not yet run or cancelled
 * @param scheduled timeouts accepted by {@code newTimeout}
 * @param expired timeouts that fired, including those whose task threw or whose executor refused it
 * @param cancelled timeouts cancelled before they fired, also by {@code stop()}
 * @param rejected {@code newTimeout} calls refused because of {@code maxPendingTimeouts}
 * @param failed tasks that threw, or that the task executor refused
 * @param ticks the tick the worker has advanced to since it started (it skips ticks with no work)
 * @param tickLag how far the worker runs behind its schedule; zero when it keeps up
 * @param state the timer's lifecycle state
 */
public record TimerStats(
        long pending,
        long scheduled,
        long expired,
        long cancelled,
        long rejected,
        long failed,
        long ticks,
        Duration tickLag,
        HashedWheelTimer.State state) {}
