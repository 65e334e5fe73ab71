package io.wheeltimer;

import static io.wheeltimer.StressSupport.AWAIT;
import static io.wheeltimer.StressSupport.NEVER_DUE;
import static io.wheeltimer.StressSupport.TASK_NAME;
import static io.wheeltimer.StressSupport.randomDelay;
import static io.wheeltimer.StressSupport.runConcurrently;
import static io.wheeltimer.StressSupport.stressTimer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

import io.wheeltimer.StressSupport.Ledger;
import io.wheeltimer.StressSupport.Violations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** upcoming() from reader threads while producers schedule and cancel. */
class UpcomingUnderLoadStressTest {

    @Test
    @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
    void upcomingIsSafeAndSortedWhileProducersScheduleAndCancel() throws Exception {
        HashedWheelTimer timer = stressTimer("wheel-upcoming").ticksPerWheel(16).build();
        try {
            int producers = 3;
            int perProducer = 40_000;
            int n = producers * perProducer;
            Ledger ledger = new Ledger(n);
            AtomicInteger producersLeft = new AtomicInteger(producers);
            Violations violations = new Violations();
            AtomicLong queries = new AtomicLong();
            List<Callable<?>> bodies = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int producer = p;
                bodies.add(() -> {
                    try {
                        SplittableRandom random = new SplittableRandom(producer);
                        for (int i = 0; i < perProducer; i++) {
                            int id = producer * perProducer + i;
                            int dice = random.nextInt(100);
                            long delay = dice < 10
                                    ? NEVER_DUE + random.nextLong(1_000_000_000)
                                    : randomDelay(random, TimeUnit.MILLISECONDS.toNanos(30));
                            ledger.delayNanos[id] = delay;
                            ledger.handles.set(id, timer.newTimeout(ledger.task(id), delay, TimeUnit.NANOSECONDS));
                            if (random.nextInt(3) == 0) {
                                ledger.cancel(id);
                            }
                            if (i % 256 == 0) {
                                LockSupport.parkNanos(50_000);
                            }
                        }
                        return null;
                    } finally {
                        producersLeft.decrementAndGet();
                    }
                });
            }
            int[][] limitsPerReader = {{1, 7, 20, 500}, {3, 20, 5_000, 100_000}};
            for (int[] limits : limitsPerReader) {
                bodies.add(() -> {
                    int i = 0;
                    // At least a few queries even if the producers finish first.
                    while (producersLeft.get() > 0 || i < 20) {
                        int limit = limits[i++ % limits.length];
                        List<TimeoutInfo> infos;
                        try {
                            infos = timer.upcoming(limit);
                        } catch (RuntimeException e) {
                            violations.add("upcoming(" + limit + ") threw " + e);
                            continue;
                        }
                        queries.incrementAndGet();
                        if (infos.size() > limit) {
                            violations.add("upcoming(" + limit + ") returned " + infos.size());
                        }
                        for (int k = 0; k < infos.size(); k++) {
                            TimeoutInfo info = infos.get(k);
                            if (!TASK_NAME.matcher(info.task()).matches()) {
                                violations.add("upcoming(" + limit + "): task " + info.task());
                                continue;
                            }
                            int id = Integer.parseInt(info.task().substring("task-".length()));
                            // Never more than the delay it was scheduled with (the timer's clock only moves on).
                            long delay = Math.max(ledger.delayNanos[id], 0);
                            if (info.remaining().isNegative()
                                    || info.remaining().compareTo(Duration.ofNanos(delay)) > 0) {
                                violations.add("upcoming(" + limit + "): " + info.task() + " remaining "
                                        + info.remaining() + ", scheduled with a delay of " + delay + " ns");
                            }
                            if (k > 0 && infos.get(k - 1).remaining().compareTo(info.remaining()) > 0) {
                                violations.add("upcoming(" + limit + ") not sorted at " + k + ": "
                                        + infos.get(k - 1).remaining() + " before " + info.remaining());
                            }
                        }
                    }
                    return null;
                });
            }
            runConcurrently(Duration.ofSeconds(90), bodies);
            violations.assertNone("upcoming while busy");
            assertThat(queries.get()).isGreaterThanOrEqualTo(40);

            // Once the short ones are gone, upcoming() sees exactly the 1-hour ones still pending.
            long longOnesLeft = 0;
            for (int id = 0; id < n; id++) {
                if (ledger.delayNanos[id] >= NEVER_DUE && ledger.cancelTrue.get(id) == 0) {
                    longOnesLeft++;
                }
            }
            long expected = longOnesLeft;
            await().atMost(AWAIT).until(() -> timer.pendingTimeouts() == expected);
            List<TimeoutInfo> all = timer.upcoming((int) expected + 10);
            assertThat(all).hasSize((int) expected);
            assertThat(all).allSatisfy(info -> assertThat(info.remaining()).isGreaterThan(Duration.ofMinutes(50)));
            List<String> expectedNames = new ArrayList<>();
            for (int id = 0; id < n; id++) {
                if (ledger.delayNanos[id] >= NEVER_DUE && ledger.cancelTrue.get(id) == 0) {
                    expectedNames.add("task-" + id);
                }
            }
            List<String> names = new ArrayList<>();
            all.forEach(info -> names.add(info.task()));
            Collections.sort(names);
            Collections.sort(expectedNames);
            assertThat(names)
                    .as("upcoming() lists exactly the pending 1-hour timeouts")
                    .isEqualTo(expectedNames);
            // Soonest first: the 1-hour ones are ordered by their deadline.
            for (int k = 1; k < all.size(); k++) {
                assertThat(all.get(k - 1).remaining())
                        .isLessThanOrEqualTo(all.get(k).remaining());
            }
            assertThat(timer.upcoming(0)).isEmpty();
            assertThat(timer.stop()).hasSize((int) expected);
            assertThat(timer.upcoming(5)).isEmpty();
        } finally {
            TestTimers.stopQuietly(timer);
        }
    }
}
