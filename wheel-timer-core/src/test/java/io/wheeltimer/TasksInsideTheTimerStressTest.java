package io.wheeltimer;

import static io.wheeltimer.StressSupport.AWAIT;
import static io.wheeltimer.StressSupport.runConcurrently;
import static io.wheeltimer.StressSupport.stressTimer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

import io.wheeltimer.StressSupport.Violations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;

/** Tasks that schedule and cancel from inside the timer, while other threads cancel. */
class TasksInsideTheTimerStressTest {

    /**
     * Chains of timeouts: each task schedules the next link of its chain (delays -1..3 ms) and now
     * and then cancels the current link of another chain, on the worker thread or on the task
     * executor; outside threads cancel current links too. Each chain must end exactly one way:
     * all its links ran, or exactly one cancel() won (and its {@code cancelled} ran once).
     */
    @ParameterizedTest(name = "hierarchical={0}, executor={1}")
    @org.junit.jupiter.params.provider.CsvSource({"true, false", "false, false", "true, true", "false, true"})
    @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
    void tasksSchedulingAndCancellingFromInsideTheTimer(boolean hierarchical, boolean executor) throws Exception {
        ExecutorService pool =
                executor ? Executors.newFixedThreadPool(2, TestTimers.daemonThreads("stress-task")) : null;
        HashedWheelTimer.Builder builder =
                stressTimer("wheel-chains").ticksPerWheel(4).hierarchical(hierarchical);
        if (pool != null) {
            builder.taskExecutor(pool);
        }
        HashedWheelTimer timer = builder.build();
        try {
            int chains = 2_000;
            int links = 20;
            AtomicReferenceArray<Timeout> current = new AtomicReferenceArray<>(chains);
            AtomicIntegerArray runs = new AtomicIntegerArray(chains);
            AtomicIntegerArray wins = new AtomicIntegerArray(chains);
            AtomicIntegerArray callbacks = new AtomicIntegerArray(chains);
            AtomicInteger failures = new AtomicInteger();

            final class Link implements TimerTask {
                final int chain;
                final int index;

                Link(int chain, int index) {
                    this.chain = chain;
                    this.index = index;
                }

                @Override
                public void run(Timeout timeout) {
                    try {
                        runs.incrementAndGet(chain);
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        if (random.nextInt(40) == 0) {
                            Timeout other = current.get(random.nextInt(chains)); // null: not scheduled yet
                            if (other != null && other.cancel()) {
                                wins.incrementAndGet(((Link) other.task()).chain);
                            }
                        }
                        if (index + 1 < links) {
                            current.set(
                                    chain,
                                    timer.newTimeout(
                                            new Link(chain, index + 1), random.nextInt(-1, 4), TimeUnit.MILLISECONDS));
                        }
                    } catch (RuntimeException e) {
                        failures.incrementAndGet();
                        throw e;
                    }
                }

                @Override
                public void cancelled(Timeout timeout) {
                    callbacks.incrementAndGet(chain);
                }
            }

            for (int c = 0; c < chains; c++) {
                current.set(c, timer.newTimeout(new Link(c, 0), c % 5, TimeUnit.MILLISECONDS));
            }
            List<Callable<?>> cancellers = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                cancellers.add(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < 600; i++) {
                        int chain = random.nextInt(chains);
                        if (current.get(chain).cancel()) {
                            wins.incrementAndGet(chain);
                        }
                        if (i % 50 == 0) {
                            LockSupport.parkNanos(1_000_000);
                        }
                    }
                    return null;
                });
            }
            runConcurrently(Duration.ofSeconds(60), cancellers);
            // Every chain ends, all links run or one cancel won. With an executor, pending can be 0
            // for a moment while a running link has yet to schedule the next one.
            await().atMost(AWAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
                for (int c = 0; c < chains; c++) {
                    if (runs.get(c) < links && wins.get(c) == 0) {
                        return false;
                    }
                }
                return timer.pendingTimeouts() == 0;
            });
            // With an executor the last tasks may still be running after their expiry was counted.
            await().atMost(AWAIT).until(() -> {
                long sum = 0;
                for (int c = 0; c < chains; c++) {
                    sum += runs.get(c);
                }
                return sum == timer.stats().expired();
            });

            Violations violations = new Violations();
            long totalRuns = 0;
            long totalWins = 0;
            for (int c = 0; c < chains; c++) {
                totalRuns += runs.get(c);
                totalWins += wins.get(c);
                boolean completed = runs.get(c) == links;
                if (wins.get(c) > 1
                        || (wins.get(c) == 1) == completed
                        || runs.get(c) > links
                        || callbacks.get(c) != wins.get(c)) {
                    violations.add("chain " + c + ": " + runs.get(c) + " of " + links + " links ran, cancel() won "
                            + wins.get(c) + " times, cancelled() called " + callbacks.get(c) + " times");
                }
            }
            TimerStats stats = timer.stats();
            violations.assertNone("chains, " + stats + ", " + failures + " links threw");
            assertThat(failures.get()).isZero();
            assertThat(stats.expired()).isEqualTo(totalRuns);
            assertThat(stats.cancelled()).isEqualTo(totalWins);
            assertThat(stats.scheduled()).isEqualTo(totalRuns + totalWins);
            assertThat(stats.failed()).isZero();
            assertThat(timer.stop()).isEmpty();
        } finally {
            TestTimers.stopQuietly(timer);
            if (pool != null) {
                pool.shutdownNow();
            }
        }
    }
}
