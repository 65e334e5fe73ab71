package io.wheeltimer;

import static io.wheeltimer.StressSupport.AWAIT;
import static io.wheeltimer.StressSupport.runConcurrently;
import static io.wheeltimer.StressSupport.stressTimer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

import io.wheeltimer.StressSupport.Ledger;
import io.wheeltimer.StressSupport.Violations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

/** Concurrent cancel() of one timeout, and cancelled timeouts no longer referenced by the timer. */
class CancelRacesStressTest {

    @Test
    @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
    void concurrentCancelOfOneTimeoutSucceedsExactlyOnce() throws Exception {
        int cancellers = 4;
        int batches = 60;
        int batchSize = 1_000;
        int n = batches * batchSize;
        for (boolean hierarchical : new boolean[] {true, false}) {
            HashedWheelTimer timer = stressTimer("wheel-cancel-race")
                    .ticksPerWheel(16)
                    .hierarchical(hierarchical)
                    .build();
            try {
                Ledger ledger = new Ledger(n);
                AtomicIntegerArray trueCounts = new AtomicIntegerArray(n);
                ThreadLocalRandom random = ThreadLocalRandom.current();
                CyclicBarrier batchStart = new CyclicBarrier(cancellers + 1);
                CyclicBarrier batchEnd = new CyclicBarrier(cancellers + 1);
                List<Callable<?>> bodies = new ArrayList<>();
                for (int k = 0; k < cancellers; k++) {
                    bodies.add(() -> {
                        for (int batch = 0; batch < batches; batch++) {
                            batchStart.await();
                            int from = batch * batchSize;
                            for (int id = from; id < from + batchSize; id++) {
                                if (ledger.handles.get(id).cancel()) {
                                    trueCounts.incrementAndGet(id);
                                }
                            }
                            batchEnd.await();
                        }
                        return null;
                    });
                }
                bodies.add(() -> {
                    for (int batch = 0; batch < batches; batch++) {
                        int from = batch * batchSize;
                        for (int id = from; id < from + batchSize; id++) {
                            int kind = id % 3;
                            long delay =
                                    kind == 0 ? TimeUnit.HOURS.toNanos(1) : kind == 1 ? 0 : random.nextLong(3_000_000);
                            ledger.handles.set(id, timer.newTimeout(ledger.task(id), delay, TimeUnit.NANOSECONDS));
                        }
                        if (batch % 2 == 1) {
                            // Let the worker take them into the wheel first (IN_WHEEL), and some expire.
                            LockSupport.parkNanos(random.nextLong(3_000_000));
                        }
                        batchStart.await();
                        batchEnd.await();
                    }
                    return null;
                });
                runConcurrently(Duration.ofSeconds(90), bodies);
                await().atMost(AWAIT).until(() -> timer.pendingTimeouts() == 0);

                Violations violations = new Violations();
                long wins = 0;
                long ran = 0;
                for (int id = 0; id < n; id++) {
                    int t = trueCounts.get(id);
                    int runs = ledger.runs.get(id);
                    int callbacks = ledger.cancelledCallbacks.get(id);
                    wins += t;
                    ran += runs;
                    if (t > 1) {
                        violations.add("id " + id + ": cancel() returned true " + t + " times");
                    }
                    if (t + runs != 1 || callbacks != t) {
                        violations.add("id " + id + ": cancel() true " + t + " times, ran " + runs
                                + " times, cancelled() called " + callbacks + " times");
                    }
                }
                violations.assertNone("hierarchical=" + hierarchical);
                assertThat(wins).as("the 1-hour ones were all cancelled").isGreaterThanOrEqualTo(n / 3);
                TimerStats stats = timer.stats();
                assertThat(stats.scheduled()).isEqualTo(n);
                assertThat(stats.cancelled()).isEqualTo(wins);
                assertThat(stats.expired()).isEqualTo(ran);
                assertThat(timer.stop()).isEmpty();
            } finally {
                TestTimers.stopQuietly(timer);
            }
        }
    }

    /**
     * Producers schedule far-future timeouts and cancel them (some before the worker took them,
     * some after), then drop the handles. The timer must not keep them: each task becomes
     * unreachable. The 100 ms tick and the 1-hour timeouts left pending mean the worker sleeps far
     * ahead, so this also checks that a cancel wakes it to unlink (the timer does so within a tick;
     * the test only asks for it within a generous wait).
     */
    @ParameterizedTest(name = "hierarchical={0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
    void cancelledTimeoutsAreReleased(boolean hierarchical) throws Exception {
        HashedWheelTimer timer = HashedWheelTimer.builder()
                .name("wheel-release")
                .tickDuration(Duration.ofMillis(100))
                .hierarchical(hierarchical)
                .leakDetection(false)
                .build();
        try {
            // Keeps the wheel non-empty, so the worker sleeps until a far tick instead of idling.
            List<Timeout> keep = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                keep.add(timer.newTimeout(t -> {}, 1 + i, TimeUnit.HOURS));
            }
            await().atMost(AWAIT).until(() -> timer.upcoming(20).size() == 10);
            int producers = 3;
            int perProducer = 20_000;
            List<java.lang.ref.WeakReference<TimerTask>> watched = new CopyOnWriteArrayList<>();
            List<Callable<?>> bodies = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int producer = p;
                bodies.add(() -> {
                    SplittableRandom random = new SplittableRandom(producer);
                    List<Timeout> later = new ArrayList<>();
                    for (int i = 0; i < perProducer; i++) {
                        TimerTask task = new RecordingTask("stress");
                        Timeout handle = timer.newTimeout(task, 30 + random.nextInt(30), TimeUnit.MINUTES);
                        if (i % 200 == 0) {
                            watched.add(new java.lang.ref.WeakReference<>(task));
                        }
                        if (random.nextBoolean()) {
                            assertThat(handle.cancel()).isTrue();
                        } else {
                            later.add(handle);
                        }
                        if (later.size() == 500) {
                            LockSupport.parkNanos(2_000_000); // the worker takes them into the wheel meanwhile
                            later.forEach(h -> assertThat(h.cancel()).isTrue());
                            later.clear();
                        }
                    }
                    later.forEach(h -> assertThat(h.cancel()).isTrue());
                    return null;
                });
            }
            runConcurrently(Duration.ofSeconds(60), bodies);
            assertThat(timer.pendingTimeouts()).isEqualTo(keep.size());
            assertThat(watched).hasSize(producers * perProducer / 200);

            // Quiet phase: timeouts in the wheel, the worker gone back to a long sleep (the pause
            // only sets the scene), then cancels from several threads. Only a wake-up on cancel
            // gets these unlinked before the worker's next far event (half an hour away).
            List<Timeout> quiet = new ArrayList<>();
            for (int i = 0; i < 3_000; i++) {
                TimerTask task = new RecordingTask("stress");
                quiet.add(timer.newTimeout(task, 40, TimeUnit.MINUTES));
                watched.add(new java.lang.ref.WeakReference<>(task));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            List<Callable<?>> cancellers = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                List<Timeout> share = new ArrayList<>(quiet.subList(p * 1_000, (p + 1) * 1_000));
                cancellers.add(() -> {
                    share.forEach(h -> assertThat(h.cancel()).isTrue());
                    return null;
                });
            }
            quiet.clear();
            runConcurrently(Duration.ofSeconds(60), cancellers);
            cancellers.clear();
            assertThat(timer.pendingTimeouts()).isEqualTo(keep.size());
            await("cancelled tasks become unreachable")
                    .atMost(AWAIT)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        System.gc();
                        return watched.stream().allMatch(ref -> ref.get() == null);
                    });
            assertThat(timer.stop()).hasSize(keep.size());
        } finally {
            TestTimers.stopQuietly(timer);
        }
    }
}
