package io.wheeltimer;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.wheeltimer.testing.ManualTicker;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No idle ticking, in real time: with a 1 ms tick, Netty's worker wakes 1000
 * times a second whatever is pending; ours sleeps until the next tick that has work. Bounds are
 * generous for a noisy 2-core CI machine.
 */
class IdleWorkerTest {

    private static final Duration ONE_MS = Duration.ofMillis(1);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @RegisterExtension
    final TestTimers timers = new TestTimers();

    @BeforeAll
    static void needsThreadCpuTime() {
        assumeThat(THREADS.isThreadCpuTimeSupported())
                .as("thread CPU time measurable")
                .isTrue();
        if (!THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
    }

    private HashedWheelTimer timer(boolean hierarchical) {
        HashedWheelTimer timer = HashedWheelTimer.builder()
                .name("idle-test")
                .tickDuration(ONE_MS)
                .hierarchical(hierarchical)
                .build();
        timers.track(timer);
        return timer;
    }

    private static long cpuNanos(HashedWheelTimer timer) {
        return THREADS.getThreadCpuTime(timer.workerThread().getId());
    }

    @Test
    void startedTimerWithNothingPendingUsesNoCpuAndDoesNotWake() throws Exception {
        HashedWheelTimer timer = timer(true);
        timer.start();
        Thread.sleep(200); // let the worker settle into its sleep
        long cpuBefore = cpuNanos(timer);
        long wakeUpsBefore = timer.worker().wakeUps();

        Thread.sleep(2_000); // 2000 ticks of 1 ms

        long cpu = cpuNanos(timer) - cpuBefore;
        long wakeUps = timer.worker().wakeUps() - wakeUpsBefore;
        assertThat(wakeUps).as("wake-ups in 2000 idle ticks").isLessThanOrEqualTo(5);
        assertThat(Duration.ofNanos(cpu)).as("worker CPU in 2 s idle").isLessThan(Duration.ofMillis(50));
        assertThat(timer.workerThread().getState()).isEqualTo(Thread.State.WAITING); // parked without a deadline
    }

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void singleTimeoutTwoSecondsAheadCostsOnlyAHandfulOfWakeUps(boolean hierarchical) throws Exception {
        HashedWheelTimer timer = timer(hierarchical);
        timer.start();
        Thread.sleep(100);
        long wakeUpsBefore = timer.worker().wakeUps();
        long cpuBefore = cpuNanos(timer);
        CountDownLatch fired = new CountDownLatch(1);
        long scheduledAt = System.nanoTime();
        long[] firedAt = new long[1];

        timer.newTimeout(
                t -> {
                    firedAt[0] = System.nanoTime();
                    fired.countDown();
                },
                Duration.ofSeconds(2));

        assertThat(fired.await(20, SECONDS)).isTrue();
        long wakeUps = timer.worker().wakeUps() - wakeUpsBefore;
        long cpu = cpuNanos(timer) - cpuBefore;
        assertThat(firedAt[0] - scheduledAt)
                .isGreaterThanOrEqualTo(Duration.ofSeconds(2).toNanos());
        assertThat(wakeUps)
                .as("wake-ups for one timeout 2000 ticks away (Netty: ~2000)")
                .isLessThanOrEqualTo(10);
        assertThat(Duration.ofNanos(cpu)).isLessThan(Duration.ofMillis(100));
    }

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void afterEveryTimeoutFiredOrWasCancelledTheWorkerSleepsAgain(boolean hierarchical) throws Exception {
        HashedWheelTimer timer = timer(hierarchical);
        int count = 20;
        CountDownLatch fired = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            timer.newTimeout(t -> fired.countDown(), Duration.ofMillis(5 + 5 * i));
        }
        List<Timeout> far = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            far.add(timer.newTimeout(t -> {}, Duration.ofMinutes(10 + i)));
        }
        assertThat(fired.await(20, SECONDS)).isTrue();
        far.forEach(Timeout::cancel);
        Thread.sleep(200); // the cancelled ones are unlinked within a tick
        assertThat(timer.pendingTimeouts()).isZero();
        long wakeUpsBefore = timer.worker().wakeUps();
        long cpuBefore = cpuNanos(timer);

        Thread.sleep(1_000);

        assertThat(timer.worker().wakeUps() - wakeUpsBefore)
                .as("wake-ups in 1000 idle ticks")
                .isLessThanOrEqualTo(5);
        assertThat(Duration.ofNanos(cpuNanos(timer) - cpuBefore)).isLessThan(Duration.ofMillis(50));
        // (it may sleep with a deadline: after removals the wheel's next-event hint may be early, never late)
    }

    /**
     * A long sleep ends with one early wake, {@link ReadAhead#WARM_LEAD_NANOS} before the deadline or
     * half the sleep if that is less, that reads the entries due first and fires nothing (on a
     * ManualTicker, so the wakes are exact). The worker goes to sleep at 5 or 6 ms: a sleep until
     * 60 ms is woken (60 - 6) / 2 = (60 - 5) / 2 = 27 ms early.
     */
    @ParameterizedTest(name = "hierarchical={0}, due at {1} ms, woken {2} ms early")
    @CsvSource({"true, 500, 100", "false, 500, 100", "true, 60, 27", "false, 60, 27"})
    void aLongSleepEndsWithOneEarlyWakeThatFiresNothing(boolean hierarchical, long dueMillis, long lead) {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer timer = warmTestTimer(ticker, hierarchical);
        RecordingTask task = new RecordingTask("due at " + dueMillis + " ms");
        timer.newTimeout(task, Duration.ofMillis(dueMillis)); // within the first block of 512 ticks
        // The worker takes it, looks once more at the next tick (wherever that falls: it may take it
        // at 0 or at 5 ms), and goes to its long sleep.
        ticker.advance(Duration.ofMillis(5));
        ticker.advance(ONE_MS);
        long settled = timer.worker().wakeUps();
        assertThat(Duration.ofNanos(ReadAhead.WARM_LEAD_NANOS)).isEqualTo(Duration.ofMillis(100));

        ticker.advance(Duration.ofMillis(dueMillis - 6 - lead - 1));
        assertThat(timer.worker().wakeUps())
                .as("asleep until %d ms before the deadline", lead)
                .isEqualTo(settled);
        ticker.advance(ONE_MS);
        assertThat(timer.worker().wakeUps()).as("woken %d ms early", lead).isEqualTo(settled + 1);
        ticker.advance(Duration.ofMillis(lead - 1));
        assertThat(task.runs).as("runs before its deadline").hasValue(0);
        assertThat(timer.worker().wakeUps()).as("one early wake only").isEqualTo(settled + 1);
        ticker.advance(ONE_MS);
        assertThat(task.runs).as("runs at its deadline").hasValue(1);
        assertThat(timer.pendingTimeouts()).isZero();
    }

    /**
     * Woken during a long sleep (here by a query), the worker does not lose the early wake: it is
     * armed again for the same time (and nothing is read ahead that early, which no test here sees).
     */
    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void aWakeDuringTheSleepKeepsTheEarlyWakeWhereItWas(boolean hierarchical) {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer timer = warmTestTimer(ticker, hierarchical);
        RecordingTask task = new RecordingTask("due at 500 ms");
        timer.newTimeout(task, Duration.ofMillis(500));
        ticker.advance(Duration.ofMillis(5));
        ticker.advance(ONE_MS);
        ticker.advance(Duration.ofMillis(194));

        assertThat(timer.upcoming(1)).hasSize(1); // a query: the worker answers it in a round of its own
        long settled = timer.worker().wakeUps();
        ticker.advance(Duration.ofMillis(199)); // 399 ms
        assertThat(timer.worker().wakeUps())
                .as("asleep until 100 ms before the deadline")
                .isEqualTo(settled);
        ticker.advance(ONE_MS);
        assertThat(timer.worker().wakeUps()).as("woken 100 ms early").isEqualTo(settled + 1);
        ticker.advance(Duration.ofMillis(99));
        assertThat(timer.worker().wakeUps()).as("one early wake only").isEqualTo(settled + 1);
        assertThat(task.runs).hasValue(0);
        ticker.advance(ONE_MS);
        assertThat(task.runs).as("runs at its deadline").hasValue(1);
    }

    /** A started 1 ms-tick timer on {@code ticker}, stopped after the test. */
    private HashedWheelTimer warmTestTimer(ManualTicker ticker, boolean hierarchical) {
        HashedWheelTimer timer = HashedWheelTimer.builder()
                .name("warm-test")
                .ticker(ticker)
                .tickDuration(ONE_MS)
                .hierarchical(hierarchical)
                .build();
        timers.track(timer);
        timer.start();
        return timer;
    }
}
