package io.wheeltimer;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code pendingTimeouts()} as Netty counts it: a timeout whose task has started is no longer
 * pending. Neither the task itself nor a thread it signals may still count it, and the counts stay
 * exact (scheduled = pending + expired + cancelled once nothing is in flight).
 *
 * <p>The real-time tests repeat the check of Netty's own test (two far timeouts, one of them
 * cancelled, one due in a millisecond that counts a latch down) many times on a 1 ms tick: a count
 * published only after the task returned shows up after the latch in some of the runs, not in
 * every one.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class PendingCountTest {

    private static final int REPETITIONS = 200;

    @RegisterExtension
    final TestTimers timers = new TestTimers();

    private final List<ExecutorService> executors = new ArrayList<>();

    @AfterEach
    void stopEverything() {
        executors.forEach(ExecutorService::shutdownNow);
    }

    private HashedWheelTimer track(HashedWheelTimer timer) {
        timers.track(timer);
        return timer;
    }

    @RepeatedTest(REPETITIONS)
    void onTheWorkerARunningTimeoutIsNotPendingInItsTaskNorOnceItSignalled() throws Exception {
        HashedWheelTimer timer = track(HashedWheelTimer.builder()
                .name("pending-count")
                .tickDuration(Duration.ofMillis(1))
                .build());

        checkRunningTimeoutIsNotPending(timer);
    }

    @RepeatedTest(REPETITIONS)
    void onATaskExecutorARunningTimeoutIsNotPendingInItsTaskNorOnceItSignalled() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        executors.add(executor);
        HashedWheelTimer timer = track(HashedWheelTimer.builder()
                .name("pending-count-executor")
                .tickDuration(Duration.ofMillis(1))
                .taskExecutor(executor)
                .build());

        checkRunningTimeoutIsNotPending(timer);
    }

    private static void checkRunningTimeoutIsNotPending(HashedWheelTimer timer) throws InterruptedException {
        Timeout far = timer.newTimeout(t -> {}, 100, MINUTES);
        Timeout cancelled = timer.newTimeout(t -> {}, 100, MINUTES);
        assertThat(timer.pendingTimeouts()).isEqualTo(2);
        // Before the short one is scheduled: its task may start before this thread's next call.
        assertThat(cancelled.cancel()).isTrue();
        AtomicReference<TimerStats> inside = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        timer.newTimeout(
                t -> {
                    inside.set(timer.stats());
                    ran.countDown();
                },
                1,
                MILLISECONDS);

        assertThat(ran.await(30, SECONDS)).isTrue();
        long pendingOnceSignalled = timer.pendingTimeouts();
        TimerStats signalled = timer.stats();

        assertThat(inside.get().pending()).as("pending inside the task").isOne();
        assertThat(inside.get().expired()).as("expired inside the task").isOne();
        assertThat(pendingOnceSignalled).as("pending once the task signalled").isOne();
        assertThat(signalled.pending() + signalled.expired() + signalled.cancelled())
                .as("pending + expired + cancelled once the task signalled")
                .isEqualTo(signalled.scheduled())
                .isEqualTo(3);
        assertThat(far.isExpired()).isFalse();
    }

    /**
     * Many timeouts due at one tick (more than the worker handles between two looks at its
     * queries): each task sees exactly those that have not started yet, on the worker thread and
     * through a task executor alike.
     */
    @ParameterizedTest(name = "through a task executor: {0}")
    @ValueSource(booleans = {false, true})
    void eachTaskOfABatchSeesOnlyTheTimeoutsThatHaveNotStarted(boolean throughExecutor) {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer.Builder builder =
                HashedWheelTimer.builder().ticker(ticker).tickDuration(Duration.ofMillis(100));
        if (throughExecutor) {
            builder.taskExecutor(Runnable::run); // not the worker's own shortcut: the handle is executed
        }
        HashedWheelTimer timer = track(builder.build());
        int due = 150;
        timer.newTimeout(t -> {}, 1, MINUTES);
        List<Long> seen = new CopyOnWriteArrayList<>();
        for (int i = 0; i < due; i++) {
            timer.newTimeout(t -> seen.add(timer.pendingTimeouts()), 100, MILLISECONDS);
        }

        ticker.advance(Duration.ofMillis(100));

        // The far one and those of the batch not started yet: due - 1 down to 0, plus one.
        assertThat(seen)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, due)
                        .map(k -> due - k + 1)
                        .boxed()
                        .toList());
        TimerStats stats = timer.stats();
        assertThat(stats.pending()).isOne();
        assertThat(stats.expired()).isEqualTo(due);
        assertThat(stats.scheduled()).isEqualTo(due + 1);
    }
}
