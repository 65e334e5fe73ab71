package io.wheeltimer;

import static io.wheeltimer.StressSupport.AWAIT;
import static io.wheeltimer.StressSupport.NEVER_DUE;
import static io.wheeltimer.StressSupport.randomDelay;
import static io.wheeltimer.StressSupport.runConcurrently;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

import io.wheeltimer.StressSupport.Ledger;
import io.wheeltimer.StressSupport.Task;
import io.wheeltimer.StressSupport.Violations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Many producers schedule and cancel while cancels race the expiry: each timeout runs exactly once or is cancelled exactly once. */
class ScheduleAndCancelStressTest {

    /**
     * One configuration of the schedule/cancel stress.
     *
     * @param executorThreads 0: tasks run on the worker thread; otherwise a pool of that size
     * @param maxPending 0: unlimited; otherwise the timer's maxPendingTimeouts, which must never
     *     refuse (it is at least {@code total}) and whose own count must come back to zero
     * @param immediatePct percentage of timeouts cancelled right after newTimeout
     * @param deferredPct percentage cancelled by their producer after a random pause around the deadline
     * @param crossPct percentage cancelled by a separate canceller thread (half of those also by the producer)
     */
    record StressConfig(
            String name,
            boolean hierarchical,
            int tickMillis,
            int ticksPerWheel,
            int executorThreads,
            long maxPending,
            int producers,
            int total,
            int maxDelayMillis,
            int immediatePct,
            int deferredPct,
            int crossPct,
            long seed) {

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<StressConfig> stressConfigs() {
        long seed = System.nanoTime();
        return Stream.of(
                new StressConfig(
                        "hierarchical, 1 ms tick, 16 buckets", true, 1, 16, 0, 0, 4, 400_000, 50, 25, 25, 10, seed),
                new StressConfig(
                        "flat, 1 ms tick, 16 buckets", false, 1, 16, 0, 0, 4, 400_000, 50, 25, 25, 10, seed + 1),
                new StressConfig(
                        "hierarchical, 2 ms tick, 8 buckets, 2-thread task executor, maxPending",
                        true,
                        2,
                        8,
                        2,
                        400_000,
                        4,
                        400_000,
                        50,
                        25,
                        25,
                        10,
                        seed + 2),
                new StressConfig(
                        "flat, 10 ms tick, 512 buckets, 2-thread task executor",
                        false,
                        10,
                        512,
                        2,
                        0,
                        4,
                        200_000,
                        50,
                        25,
                        25,
                        10,
                        seed + 3));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stressConfigs")
    @org.junit.jupiter.api.Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
    void everyTimeoutRunsExactlyOnceXorIsCancelledExactlyOnce(StressConfig config) throws Exception {
        runScheduleCancelStress(config);
    }

    /**
     * A short version of the stress with random parameters: thread counts, wheel sizes, layouts,
     * ticks, delays and cancel ratios.
     */
    @Property(tries = 25, shrinking = ShrinkingMode.OFF)
    void randomisedScheduleCancelStress(
            @ForAll @IntRange(min = 1, max = 6) int producers,
            @ForAll @IntRange(min = 1_000, max = 20_000) int total,
            @ForAll @IntRange(min = 1, max = 10) int tickMillis,
            @ForAll @IntRange(min = 0, max = 9) int wheelBits,
            @ForAll boolean hierarchical,
            @ForAll @IntRange(min = 0, max = 3) int executorThreads,
            @ForAll boolean limitPending,
            @ForAll @IntRange(min = 0, max = 60) int maxDelayMillis,
            @ForAll @IntRange(min = 0, max = 40) int immediatePct,
            @ForAll @IntRange(min = 0, max = 40) int deferredPct,
            @ForAll @IntRange(min = 0, max = 20) int crossPct,
            @ForAll long seed)
            throws Exception {
        StressConfig config = new StressConfig(
                "random",
                hierarchical,
                tickMillis,
                1 << wheelBits,
                executorThreads,
                limitPending ? total : 0,
                producers,
                total,
                maxDelayMillis,
                immediatePct,
                deferredPct,
                crossPct,
                seed);
        runScheduleCancelStress(config);
    }

    private record Deferred(long atNanos, int id) {}

    static void runScheduleCancelStress(StressConfig c) throws Exception {
        ExecutorService taskExecutor = c.executorThreads() > 0
                ? Executors.newFixedThreadPool(c.executorThreads(), TestTimers.daemonThreads("stress-task"))
                : null;
        HashedWheelTimer.Builder builder = HashedWheelTimer.builder()
                .name("wheel-stress")
                .tickDuration(Duration.ofMillis(c.tickMillis()))
                .ticksPerWheel(c.ticksPerWheel())
                .hierarchical(c.hierarchical())
                .maxPendingTimeouts(c.maxPending())
                .leakDetection(false);
        if (taskExecutor != null) {
            builder.taskExecutor(taskExecutor);
        }
        HashedWheelTimer timer = builder.build();
        String context = c.name() + " (seed " + c.seed() + ", " + describe(c) + ")";
        try {
            Ledger ledger = new Ledger(c.total());
            ConcurrentLinkedQueue<Integer> crossCancels = new ConcurrentLinkedQueue<>();
            AtomicBoolean producersDone = new AtomicBoolean();

            AtomicInteger producersLeft = new AtomicInteger(c.producers());
            List<Callable<?>> bodies = new ArrayList<>();
            for (int p = 0; p < c.producers(); p++) {
                int producer = p;
                bodies.add(() -> {
                    try {
                        produce(c, producer, timer, ledger, crossCancels);
                        return null;
                    } finally {
                        if (producersLeft.decrementAndGet() == 0) {
                            producersDone.set(true);
                        }
                    }
                });
            }
            // The canceller thread works until the last producer is done (and its queue is empty).
            bodies.add(() -> {
                while (true) {
                    boolean finished = producersDone.get();
                    for (Integer id; (id = crossCancels.poll()) != null; ) {
                        ledger.cancel(id);
                    }
                    if (finished) {
                        return null;
                    }
                    Thread.yield();
                }
            });
            runConcurrently(Duration.ofMinutes(2), bodies);

            await("pendingTimeouts() == 0, " + context)
                    .atMost(AWAIT)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> timer.pendingTimeouts() == 0);
            // The task runs after the expiry is counted (on the executor, possibly much later).
            await("every expired task has run, " + context)
                    .atMost(AWAIT)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> ledger.totalRuns() >= timer.stats().expired());

            Violations violations = new Violations();
            long ran = 0;
            long cancelledByUs = 0;
            for (int id = 0; id < c.total(); id++) {
                int runs = ledger.runs.get(id);
                int wins = ledger.cancelTrue.get(id);
                int callbacks = ledger.cancelledCallbacks.get(id);
                Timeout handle = ledger.handles.get(id);
                ran += runs;
                cancelledByUs += wins;
                if (runs > 1) {
                    violations.add("id " + id + " ran " + runs + " times");
                }
                if (wins > 1) {
                    violations.add("id " + id + ": cancel() returned true " + wins + " times");
                }
                if (runs + wins != 1) {
                    violations.add("id " + id + " (delay " + ledger.delayNanos[id] + " ns): ran " + runs
                            + " times, cancel() true " + wins + " times, expected exactly one of the two; "
                            + handle);
                }
                if (callbacks != wins) {
                    violations.add("id " + id + ": cancelled() called " + callbacks + " times, cancel() true " + wins
                            + " times");
                }
                if (runs == 1 && (!handle.isExpired() || handle.isCancelled())) {
                    violations.add("id " + id + " ran but isExpired=" + handle.isExpired() + " isCancelled="
                            + handle.isCancelled());
                }
                if (wins == 1 && (!handle.isCancelled() || handle.isExpired())) {
                    violations.add("id " + id + " cancelled but isCancelled=" + handle.isCancelled() + " isExpired="
                            + handle.isExpired());
                }
                if (runs == 1 && ledger.runArgument.get(id) != handle) {
                    violations.add("id " + id + ": run() got " + ledger.runArgument.get(id) + ", not its handle");
                }
                if (callbacks == 1 && ledger.cancelledArgument.get(id) != handle) {
                    violations.add("id " + id + ": cancelled() got another Timeout than its handle");
                }
                if (handle.task() != null && ((Task) handle.task()).id != id) {
                    violations.add("id " + id + ": handle.task() is task " + handle.task());
                }
                if (handle.timer() != timer) {
                    violations.add("id " + id + ": handle.timer() is not the timer");
                }
                long delay = ledger.delayNanos[id];
                if (runs == 1 && delay > 0 && ledger.ranAt.get(id) - ledger.scheduledAt[id] < delay) {
                    violations.add("id " + id + " ran early: " + (ledger.ranAt.get(id) - ledger.scheduledAt[id])
                            + " ns after newTimeout, delay " + delay + " ns");
                }
            }
            violations.assertNone(context);

            TimerStats stats = timer.stats();
            assertThat(timer.pendingTimeouts()).as(context).isZero();
            assertThat(stats.pending()).as(context).isZero();
            assertThat(stats.scheduled()).as("scheduled, " + context).isEqualTo(c.total());
            assertThat(stats.expired() + stats.cancelled())
                    .as("expired + cancelled, " + context)
                    .isEqualTo(c.total());
            assertThat(stats.expired())
                    .as("expired == tasks that ran, " + context)
                    .isEqualTo(ran);
            assertThat(stats.cancelled())
                    .as("cancelled == cancel() calls that won, " + context)
                    .isEqualTo(cancelledByUs);
            assertThat(stats.failed()).as(context).isZero();
            assertThat(stats.rejected()).as(context).isZero();
            assertThat(stats.state()).isEqualTo(HashedWheelTimer.State.STARTED);

            // Done is done: a late cancel changes nothing.
            for (int id = 0; id < c.total(); id += 7) {
                assertThat(ledger.handles.get(id).cancel())
                        .as("late cancel of id %d", id)
                        .isFalse();
            }
            assertThat(timer.stats().cancelled()).isEqualTo(cancelledByUs);

            if (c.maxPending() > 0) {
                // The admission count came back to exactly zero: max more are accepted, not one more.
                int limit = (int) c.maxPending();
                List<Timeout> extra = new ArrayList<>(limit);
                for (int i = 0; i < limit; i++) {
                    extra.add(timer.newTimeout(t -> {}, 1, TimeUnit.HOURS));
                }
                assertThatThrownBy(() -> timer.newTimeout(t -> {}, 1, TimeUnit.HOURS))
                        .isInstanceOf(RejectedExecutionException.class)
                        .hasMessage("Number of pending timeouts (" + (limit + 1) + ") is greater than or equal to"
                                + " maximum allowed pending timeouts (" + limit + ")");
                Set<Timeout> unprocessed = timer.stop();
                assertThat(unprocessed).hasSize(limit);
                Set<Timeout> extraSet = Collections.newSetFromMap(new IdentityHashMap<>());
                extraSet.addAll(extra);
                assertThat(extraSet.containsAll(unprocessed))
                        .as("stop() returned exactly the extra ones")
                        .isTrue();
            } else {
                assertThat(timer.stop())
                        .as("nothing left for stop(), " + context)
                        .isEmpty();
            }
            TimerStats after = timer.stats();
            assertThat(after.pending()).isZero();
            assertThat(after.scheduled()).isEqualTo(after.expired() + after.cancelled());
        } finally {
            TestTimers.stopQuietly(timer);
            if (taskExecutor != null) {
                taskExecutor.shutdownNow();
            }
        }
    }

    /**
     * One producer: schedules its share of the ids (every {@code producers}-th), and cancels some at
     * once, some after a pause around their deadline, and hands some to the canceller thread.
     */
    private static void produce(
            StressConfig c,
            int producer,
            HashedWheelTimer timer,
            Ledger ledger,
            ConcurrentLinkedQueue<Integer> crossCancels) {
        long tickNanos = TimeUnit.MILLISECONDS.toNanos(c.tickMillis());
        long maxDelayNanos = TimeUnit.MILLISECONDS.toNanos(c.maxDelayMillis());
        SplittableRandom random = new SplittableRandom(c.seed() * 31 + producer);
        PriorityQueue<Deferred> deferred = new PriorityQueue<>((a, b) -> Long.compare(a.atNanos(), b.atNanos()));
        int done = 0;
        for (int id = producer; id < c.total(); id += c.producers()) {
            long delay = randomDelay(random, maxDelayNanos);
            ledger.delayNanos[id] = delay;
            ledger.scheduledAt[id] = System.nanoTime();
            Timeout handle = timer.newTimeout(ledger.task(id), delay, TimeUnit.NANOSECONDS);
            ledger.handles.set(id, handle);
            int dice = random.nextInt(100);
            if (delay >= NEVER_DUE) {
                // Never due in this test: must be cancelled, soon, by someone.
                int how = random.nextInt(3);
                if (how == 0) {
                    ledger.cancel(id);
                } else if (how == 1) {
                    long pause = random.nextLong(Math.max(maxDelayNanos, tickNanos) + 1);
                    deferred.add(new Deferred(ledger.scheduledAt[id] + pause, id));
                } else {
                    crossCancels.add(id);
                }
            } else if (dice < c.immediatePct()) {
                ledger.cancel(id);
            } else if (dice < c.immediatePct() + c.deferredPct()) {
                // Around the deadline, so that many of these race the expiry.
                long around = Math.max(delay, 0) + random.nextLong(3 * tickNanos + 1) - tickNanos;
                deferred.add(new Deferred(ledger.scheduledAt[id] + Math.max(around, 0), id));
            } else if (dice < c.immediatePct() + c.deferredPct() + c.crossPct()) {
                crossCancels.add(id);
                if (random.nextBoolean()) {
                    ledger.cancel(id); // races the canceller thread's cancel
                }
            }
            long now = System.nanoTime();
            while (!deferred.isEmpty() && deferred.peek().atNanos() <= now) {
                ledger.cancel(deferred.poll().id());
            }
            if (++done % 512 == 0) {
                LockSupport.parkNanos(random.nextLong(200_000)); // let time pass
            }
        }
        while (!deferred.isEmpty()) {
            Deferred next = deferred.poll();
            long wait = next.atNanos() - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            ledger.cancel(next.id());
        }
    }

    private static String describe(StressConfig c) {
        return "hierarchical=" + c.hierarchical() + " tick=" + c.tickMillis() + "ms wheel=" + c.ticksPerWheel()
                + " executorThreads=" + c.executorThreads() + " maxPending=" + c.maxPending() + " producers="
                + c.producers() + " total=" + c.total() + " maxDelay=" + c.maxDelayMillis() + "ms cancel%="
                + c.immediatePct() + "/" + c.deferredPct() + "/" + c.crossPct();
    }
}
