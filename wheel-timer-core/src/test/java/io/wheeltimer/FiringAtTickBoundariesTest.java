package io.wheeltimer;

import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer.State;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** When a timeout runs: at the first tick boundary at or after its deadline, never early, in both layouts. */
class FiringAtTickBoundariesTest extends TimerTestFixture {

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void zeroOrNegativeDelayRunsOnTheNextTick(boolean hierarchical) {
        HashedWheelTimer timer = manualTimer(ticker, hierarchical);
        ticker.advance(Duration.ofMillis(50));
        RecordingTask zero = new RecordingTask("zero");
        RecordingTask negative = new RecordingTask("negative");
        RecordingTask veryNegative = new RecordingTask("veryNegative");
        RecordingTask negativeDuration = new RecordingTask("negativeDuration");

        timer.newTimeout(zero, 0, MILLISECONDS);
        timer.newTimeout(negative, -5, SECONDS);
        timer.newTimeout(veryNegative, Long.MIN_VALUE, NANOSECONDS);
        timer.newTimeout(negativeDuration, Duration.ofSeconds(Long.MIN_VALUE)); // beyond long nanos

        ticker.advance(Duration.ofMillis(50).minusNanos(1));
        assertThat(zero.runs() + negative.runs() + veryNegative.runs() + negativeDuration.runs())
                .isZero();
        ticker.advance(Duration.ofNanos(1)); // 100 ms: the next boundary
        assertThat(List.of(zero.runs(), negative.runs(), veryNegative.runs(), negativeDuration.runs()))
                .containsOnly(1);
    }

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void zeroDelayScheduledExactlyOnABoundaryRunsAtTheFollowingBoundary(boolean hierarchical) {
        HashedWheelTimer timer = manualTimer(ticker, hierarchical);
        ticker.advance(Duration.ofMillis(100));
        RecordingTask task = new RecordingTask("t");

        timer.newTimeout(task, 0, MILLISECONDS);
        ticker.advance(Duration.ofMillis(100).minusNanos(1));
        assertThat(task.runs()).isZero();
        ticker.advance(Duration.ofNanos(1));
        assertThat(task.runs()).isOne();
    }

    /**
     * A timeout fires at the first tick boundary at or after its deadline (boundaries every
     * 100 ms from the start): never before it, and at the boundary itself, not a tick later,
     * when the deadline falls on one, also when it was scheduled between two boundaries.
     */
    @ParameterizedTest(name = "hierarchical={0}: scheduled at {1} ms for {2} ms, fires at {3} ms")
    @CsvSource({
        "true, 0, 100, 100",
        "false, 0, 100, 100",
        "true, 0, 300, 300",
        "false, 0, 300, 300",
        "true, 50, 150, 200",
        "false, 50, 150, 200",
        "true, 0, 250, 300",
        "false, 0, 250, 300"
    })
    void firesAtTheFirstTickBoundaryAtOrAfterItsDeadline(
            boolean hierarchical, long scheduledAtMillis, long delayMillis, long firesAtMillis) {
        HashedWheelTimer timer = manualTimer(ticker, hierarchical);
        ticker.advance(Duration.ofMillis(scheduledAtMillis));
        RecordingTask task = new RecordingTask("t", ticker);

        Timeout timeout = timer.newTimeout(task, Duration.ofMillis(delayMillis));

        if (scheduledAtMillis + delayMillis < firesAtMillis) {
            ticker.advance(Duration.ofMillis(delayMillis)); // the deadline, between two boundaries
            assertThat(task.runs()).as("at its deadline").isZero();
            assertThat(timeout.isExpired()).isFalse();
        }
        ticker.advance(Duration.ofNanos(Duration.ofMillis(firesAtMillis).toNanos() - ticker.nanoTime() - 1));
        assertThat(task.runs()).as("a nanosecond before its boundary").isZero();
        assertThat(timeout.isExpired()).isFalse();
        ticker.advance(Duration.ofNanos(1));
        assertThat(task.runs()).as("at its boundary").isOne();
        assertThat(task.ranAtNanos).isEqualTo(Duration.ofMillis(firesAtMillis).toNanos());
        assertThat(timeout.isExpired()).isTrue();
        assertThat(timeout.isCancelled()).isFalse();
        assertThat(timer.stats().ticks()).isEqualTo(firesAtMillis / 100);
    }

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void farFutureTimeoutsManyRotationsAwayFireExactlyAtTheirBoundary(boolean hierarchical) {
        HashedWheelTimer timer = manualTimer(HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(TICK)
                .ticksPerWheel(4)
                .hierarchical(hierarchical));
        long[] ticks = {5, 17, 64, 65, 1_000, 4_097, 123_456};
        List<RecordingTask> tasks = new ArrayList<>();
        for (long tick : ticks) {
            RecordingTask task = new RecordingTask("tick " + tick, ticker);
            tasks.add(task);
            timer.newTimeout(task, tick * TICK_NANOS - 1, NANOSECONDS); // 1 ns before the boundary
        }

        long now = 0;
        for (int i = 0; i < ticks.length; i++) {
            long boundary = ticks[i] * TICK_NANOS;
            ticker.advance(boundary - 1 - now, NANOSECONDS);
            assertThat(tasks.get(i).runs()).as(tasks.get(i) + " 1 ns early").isZero();
            ticker.advance(1, NANOSECONDS);
            now = boundary;
            assertThat(tasks.get(i).runs()).as(tasks.get(i).toString()).isOne();
            assertThat(tasks.get(i).ranAtNanos).isEqualTo(boundary);
        }
    }

    static Stream<Arguments> layoutsAndWheelSizes() {
        return Stream.of(true, false).flatMap(h -> Stream.of(1, 2, 4, 64, 512).map(w -> Arguments.of(h, w)));
    }

    /** One scheduled timeout of {@link #randomTimeoutsFireAtTheFirstTickBoundaryAtOrAfterTheirDeadline}. */
    private static final class Expected {
        final RecordingTask task;
        final long deadlineNanos;
        final long boundaryNanos;
        Timeout timeout;
        boolean cancelled;

        Expected(RecordingTask task, long deadline, long tick) {
            this.task = task;
            this.deadlineNanos = deadline;
            this.boundaryNanos = (deadline + tick - 1) / tick * tick;
        }
    }

    /**
     * Random deadlines (next tick, on, just before and just after boundaries, many rotations and
     * levels away), random cancels and random steps of time (to, just before, just past and far
     * beyond boundaries): after every step exactly the due timeouts have run, in the step that
     * reached their boundary, and upcoming lists exactly the others.
     */
    @ParameterizedTest(name = "hierarchical={0}, ticksPerWheel={1}")
    @MethodSource("layoutsAndWheelSizes")
    void randomTimeoutsFireAtTheFirstTickBoundaryAtOrAfterTheirDeadline(boolean hierarchical, int wheel) {
        long tick = 1_000_000;
        Random random = new Random(31L * wheel + (hierarchical ? 1 : 0));
        long start = random.nextLong();
        ManualTicker ticker = new ManualTicker(start);
        HashedWheelTimer timer = manualTimer(HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(Duration.ofNanos(tick))
                .ticksPerWheel(wheel)
                .hierarchical(hierarchical));
        List<Expected> all = new ArrayList<>();
        long elapsed = 0;

        for (int round = 0; round < 150; round++) {
            for (int n = random.nextInt(4); n > 0; n--) {
                long delay = randomDelay(random, elapsed, tick, wheel);
                long deadline = delay <= 0 ? elapsed + 1 : elapsed + delay;
                Expected e = new Expected(new RecordingTask("t" + all.size(), ticker), deadline, tick);
                e.timeout = timer.newTimeout(e.task, delay, NANOSECONDS);
                all.add(e);
            }
            if (!all.isEmpty() && random.nextInt(4) == 0) {
                Expected e = all.get(random.nextInt(all.size()));
                boolean cancellable = !e.cancelled && e.task.runs() == 0;
                assertThat(e.timeout.cancel()).as("cancel of " + e.task).isEqualTo(cancellable);
                e.cancelled |= cancellable;
            }

            long step = randomStep(random, elapsed, tick, wheel, all);
            ticker.advance(step, NANOSECONDS);
            elapsed += step;

            for (Expected e : all) {
                boolean due = !e.cancelled && e.boundaryNanos <= elapsed;
                assertThat(e.task.runs())
                        .as("%s (deadline %d, boundary %d) at %d", e.task, e.deadlineNanos, e.boundaryNanos, elapsed)
                        .isEqualTo(due ? 1 : 0);
                if (due && e.boundaryNanos > elapsed - step) { // its boundary was reached in this step
                    assertThat(e.task.ranAtNanos - start)
                            .as("%s ran in the step that reached it", e.task)
                            .isEqualTo(elapsed);
                }
            }
            long finalElapsed = elapsed;
            List<Expected> pending = all.stream()
                    .filter(e -> !e.cancelled && e.boundaryNanos > finalElapsed)
                    .sorted(Comparator.comparingLong(e -> e.deadlineNanos))
                    .collect(Collectors.toList());
            List<TimeoutInfo> upcoming = timer.upcoming(1_000);
            assertThat(upcoming)
                    .extracting(TimeoutInfo::remaining)
                    .containsExactlyElementsOf(pending.stream()
                            .map(e -> Duration.ofNanos(Math.max(e.deadlineNanos - finalElapsed, 0)))
                            .collect(Collectors.toList()));
            assertThat(upcoming)
                    .extracting(TimeoutInfo::task)
                    .containsExactlyInAnyOrderElementsOf(
                            pending.stream().map(e -> e.task.toString()).collect(Collectors.toList()));
            assertThat(timer.pendingTimeouts()).isEqualTo(pending.size());
        }

        long last = all.stream()
                .filter(e -> !e.cancelled)
                .mapToLong(e -> e.boundaryNanos)
                .max()
                .orElse(elapsed);
        ticker.advance(Math.max(last - elapsed, 0), NANOSECONDS);
        long ran = all.stream().filter(e -> e.task.runs() == 1).count();
        long cancelled = all.stream().filter(e -> e.cancelled).count();
        assertThat(ran + cancelled).isEqualTo(all.size());
        assertThat(all)
                .allSatisfy(e -> assertThat(e.task.runs() + e.task.cancels()).isOne());
        TimerStats stats = timer.stats();
        assertThat(stats.scheduled()).isEqualTo(all.size());
        assertThat(stats.expired()).isEqualTo(ran);
        assertThat(stats.cancelled()).isEqualTo(cancelled);
        assertThat(stats.pending()).isZero();
        assertThat(timer.isHierarchical()).isEqualTo(hierarchical && wheel > 1);
    }

    private static long randomDelay(Random random, long elapsed, long tick, int wheel) {
        long nextBoundaryAfter = (elapsed / tick + 1 + random.nextInt(3 * wheel + 3)) * tick;
        switch (random.nextInt(8)) {
            case 0:
                return -random.nextInt(2_000_000); // zero or negative: next tick
            case 1:
                return 1 + random.nextLong(3 * tick);
            case 2:
                return nextBoundaryAfter - elapsed; // exactly on a boundary
            case 3:
                return nextBoundaryAfter - elapsed + 1;
            case 4:
                return nextBoundaryAfter - elapsed - 1;
            case 5:
                return 1 + random.nextLong(tick * wheel * 8 + tick);
            case 6:
                return 1 + random.nextLong(tick * Math.max(Math.min((long) wheel * wheel * wheel, 1L << 24), 1_000));
            default:
                return 1 + random.nextLong(tick * (1L << 30)); // up to ~12 days of 1 ms ticks
        }
    }

    private static long randomStep(Random random, long elapsed, long tick, int wheel, List<Expected> all) {
        long[] boundaries = all.stream()
                .filter(e -> !e.cancelled && e.boundaryNanos > elapsed)
                .mapToLong(e -> e.boundaryNanos)
                .sorted()
                .toArray();
        switch (random.nextInt(7)) {
            case 0:
                return 0;
            case 1:
                return 1 + random.nextLong(2 * tick);
            case 2:
                return boundaries.length == 0 ? tick : boundaries[0] - elapsed;
            case 3:
                return boundaries.length == 0 ? tick - 1 : boundaries[0] - elapsed - 1;
            case 4:
                return boundaries.length == 0
                        ? 3 * tick
                        : boundaries[random.nextInt(boundaries.length)] - elapsed - random.nextInt(2);
            case 5:
                return 1 + random.nextLong(tick * wheel * 4 + tick);
            default:
                return 1 + random.nextLong(tick * 5);
        }
    }

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void delayThatOverflowsNeverRunsAndCanStillBeCancelled(boolean hierarchical) {
        ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - 5);
        HashedWheelTimer timer = manualTimer(HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(Duration.ofMillis(1))
                .hierarchical(hierarchical));
        ticker.advance(Duration.ofMillis(10));
        RecordingTask maxNanos = new RecordingTask("maxNanos");
        RecordingTask maxDays = new RecordingTask("maxDays");
        RecordingTask hugeDuration = new RecordingTask("hugeDuration");

        Timeout a = timer.newTimeout(maxNanos, Long.MAX_VALUE, NANOSECONDS);
        Timeout b = timer.newTimeout(maxDays, Long.MAX_VALUE, DAYS);
        Timeout c = timer.newTimeout(hugeDuration, Duration.ofSeconds(Long.MAX_VALUE)); // beyond long nanos

        assertThat(timer.upcoming(10))
                .extracting(TimeoutInfo::remaining)
                .containsOnly(
                        Duration.ofNanos(Long.MAX_VALUE - Duration.ofMillis(10).toNanos()));
        ticker.advance(Duration.ofDays(365L * 250));
        ticker.advance(Duration.ofDays(365L * 40));
        assertThat(maxNanos.runs() + maxDays.runs() + hugeDuration.runs()).isZero();
        assertThat(timer.pendingTimeouts()).isEqualTo(3);

        assertThat(a.cancel()).isTrue();
        assertThat(b.cancel()).isTrue();
        assertThat(c.cancel()).isTrue();
        assertThat(List.of(maxNanos.cancels(), maxDays.cancels(), hugeDuration.cancels()))
                .containsOnly(1);
        assertThat(timer.pendingTimeouts()).isZero();
        assertThat(timer.state()).isEqualTo(State.STARTED);
    }

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void durationOverloadSchedulesLikeTheUnitOverload(boolean hierarchical) {
        HashedWheelTimer timer = manualTimer(ticker, hierarchical);
        RecordingTask viaDuration = new RecordingTask("duration", ticker);
        RecordingTask viaUnit = new RecordingTask("unit", ticker);

        Timeout d = timer.newTimeout(viaDuration, Duration.ofMillis(1_234));
        Timeout u = timer.newTimeout(viaUnit, 1_234, MILLISECONDS);
        assertThat(d.task()).isSameAs(viaDuration);
        assertThat(d.timer()).isSameAs(timer);
        assertThat(u.timer()).isSameAs(timer);

        ticker.advance(Duration.ofMillis(1_299));
        assertThat(viaDuration.runs() + viaUnit.runs()).isZero();
        ticker.advance(Duration.ofMillis(1));
        assertThat(viaDuration.runs()).isOne();
        assertThat(viaUnit.runs()).isOne();
        assertThat(viaDuration.ranAtNanos)
                .isEqualTo(viaUnit.ranAtNanos)
                .isEqualTo(Duration.ofMillis(1_300).toNanos());
    }

    @Test
    void realTimeTimeoutsRunNotBeforeTheirDelayAndAtMostAboutATickLate() throws Exception {
        HashedWheelTimer timer = timers.track(
                HashedWheelTimer.builder().tickDuration(Duration.ofMillis(10)).build());
        timer.start();
        long[] delaysMillis = {0, 1, 10, 15, 50, 100, 230, 300};
        long[] scheduledAt = new long[delaysMillis.length];
        long[] ranAt = new long[delaysMillis.length];
        CountDownLatch all = new CountDownLatch(delaysMillis.length);
        for (int i = 0; i < delaysMillis.length; i++) {
            int index = i;
            scheduledAt[i] = System.nanoTime();
            timer.newTimeout(
                    t -> {
                        ranAt[index] = System.nanoTime();
                        all.countDown();
                    },
                    delaysMillis[i],
                    MILLISECONDS);
        }

        assertThat(all.await(20, SECONDS)).isTrue();
        for (int i = 0; i < delaysMillis.length; i++) {
            long took = ranAt[i] - scheduledAt[i];
            assertThat(took)
                    .as("delay %d ms: never early", delaysMillis[i])
                    .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(delaysMillis[i]));
            // a tick late at most, plus a generous allowance for a noisy 2-core CI machine
            assertThat(took)
                    .as("delay %d ms: about a tick late at most", delaysMillis[i])
                    .isLessThan(MILLISECONDS.toNanos(delaysMillis[i] + 10 + 1_000));
        }
    }

    /** Delegates to a {@link ManualTicker}; once armed, holds the worker at its next clock reading. */
    private static final class GatedTicker implements Ticker {
        final ManualTicker time;
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile Thread gated;

        GatedTicker(ManualTicker time) {
            this.time = time;
        }

        @Override
        public long nanoTime() {
            if (Thread.currentThread() == gated) {
                gated = null;
                reached.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return time.nanoTime();
        }

        @Override
        public void sleepUntil(long deadlineNanos) {
            time.sleepUntil(deadlineNanos);
        }

        @Override
        public void sleep() {
            time.sleep();
        }

        @Override
        public void wake(Thread worker) {
            time.wake(worker);
        }
    }

    /**
     * Each round the worker reads the clock, takes the hand-offs, then advances the wheel no further
     * than the time it read. A timeout handed off while the worker is inside that clock read, whose
     * boundary the clock then passes, still runs at its boundary, in the advance that reaches it, not
     * a tick late. The ticker here holds the worker inside its clock read, to make the window certain.
     */
    @Test
    void timeoutHandedOffWhileTheWorkerIsAwakeRunsInTheAdvanceThatReachesItsBoundary() throws Exception {
        ManualTicker time = new ManualTicker();
        GatedTicker ticker = new GatedTicker(time);
        HashedWheelTimer timer = timers.track(
                HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).build());
        timer.start();
        time.advance(Duration.ZERO); // the worker sleeps, with nothing to do
        ticker.gated = timer.workerThread();

        timer.newTimeout(noop(), Duration.ofHours(1)); // wakes the worker; it takes this one, then reads the clock
        assertThat(ticker.reached.await(10, SECONDS)).isTrue();
        RecordingTask task = new RecordingTask("due at 100 ms", time);
        timer.newTimeout(task, Duration.ofMillis(100)); // handed off while the worker is awake
        Future<?> advance = pool.submit(() -> time.advance(Duration.ofMillis(100)));
        await().atMost(Duration.ofSeconds(10)).until(() -> time.nanoTime() == TICK_NANOS);
        ticker.release.countDown();
        advance.get(10, SECONDS);

        assertThat(task.runs())
                .as("ran within the advance that reached its boundary")
                .isOne();
        assertThat(task.ranAtNanos).isEqualTo(TICK_NANOS);
    }
}
