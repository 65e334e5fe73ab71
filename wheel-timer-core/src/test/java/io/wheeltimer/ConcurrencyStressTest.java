package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Group;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Concurrency stress tests of {@link HashedWheelTimer} in real time (system ticker): many producer
 * threads scheduling and cancelling, cancels racing expiry, {@code stop()} racing {@code newTimeout},
 * concurrent {@code stop()}, concurrent {@code cancel()}, {@code upcoming()} while the timer is busy,
 * cancelled timeouts being released, tasks that schedule and cancel from inside the timer, and a
 * jqwik property running a short randomised version of the first.
 *
 * <p>Nothing here asserts timing beyond "never early" (which holds however loaded the machine is):
 * every check is an invariant of the outcome (each timeout ran exactly once XOR was cancelled
 * exactly once, nothing lost, counts exact). Waits are generous because CI machines are shared.
 */
class ConcurrencyStressTest {

    private static final Duration AWAIT = Duration.ofSeconds(60);
    private static final Pattern TASK_NAME = Pattern.compile("task-\\d+");

    /** Per-id record of what happened to each timeout. */
    static final class Ledger {
        final int size;
        final AtomicIntegerArray runs;
        final AtomicIntegerArray cancelledCallbacks;
        final AtomicIntegerArray cancelTrue;
        final AtomicLongArray ranAt;
        final AtomicReferenceArray<Timeout> handles;
        final AtomicReferenceArray<Timeout> runArgument;
        final AtomicReferenceArray<Timeout> cancelledArgument;
        /** Written by the producer before its newTimeout, read after it was joined. */
        final long[] scheduledAt;

        final long[] delayNanos;

        Ledger(int size) {
            this.size = size;
            runs = new AtomicIntegerArray(size);
            cancelledCallbacks = new AtomicIntegerArray(size);
            cancelTrue = new AtomicIntegerArray(size);
            ranAt = new AtomicLongArray(size);
            handles = new AtomicReferenceArray<>(size);
            runArgument = new AtomicReferenceArray<>(size);
            cancelledArgument = new AtomicReferenceArray<>(size);
            scheduledAt = new long[size];
            delayNanos = new long[size];
        }

        Task task(int id) {
            return new Task(this, id);
        }

        /** Cancels and records a true result. */
        boolean cancel(int id) {
            Timeout handle = handles.get(id);
            boolean won = handle.cancel();
            if (won) {
                cancelTrue.incrementAndGet(id);
            }
            return won;
        }

        long totalRuns() {
            long sum = 0;
            for (int i = 0; i < size; i++) {
                sum += runs.get(i);
            }
            return sum;
        }
    }

    /** A task that records its runs and its {@code cancelled} callbacks in a {@link Ledger}. */
    static final class Task implements TimerTask {
        final Ledger ledger;
        final int id;

        Task(Ledger ledger, int id) {
            this.ledger = ledger;
            this.id = id;
        }

        @Override
        public void run(Timeout timeout) {
            ledger.ranAt.set(id, System.nanoTime());
            ledger.runArgument.set(id, timeout);
            ledger.runs.incrementAndGet(id);
        }

        @Override
        public void cancelled(Timeout timeout) {
            ledger.cancelledArgument.set(id, timeout);
            ledger.cancelledCallbacks.incrementAndGet(id);
        }

        @Override
        public String toString() {
            return "task-" + id;
        }
    }

    /** Collects up to 20 violation messages, and counts the rest. */
    static final class Violations {
        final List<String> messages = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger count = new AtomicInteger();

        void add(String message) {
            if (count.incrementAndGet() <= 20) {
                messages.add(message);
            }
        }

        void assertNone(String context) {
            assertThat(messages)
                    .as("%s: %d invariant violation(s), first ones listed", context, count.get())
                    .isEmpty();
        }
    }

    /** Runs the callables on fresh daemon threads, all started together, and waits for them. */
    static List<Object> runConcurrently(Duration timeout, List<Callable<?>> bodies) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(bodies.size(), TestTimers.daemonThreads("stress"));
        try {
            CyclicBarrier start = new CyclicBarrier(bodies.size());
            List<Future<?>> futures = new ArrayList<>();
            for (Callable<?> body : bodies) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return body.call();
                }));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            List<Object> results = new ArrayList<>();
            for (Future<?> future : futures) {
                long left = Math.max(deadline - System.nanoTime(), 1);
                try {
                    results.add(future.get(left, TimeUnit.NANOSECONDS));
                } catch (TimeoutException e) {
                    throw new AssertionError(
                            "a concurrent body did not finish within " + timeout + " (hung?):\n" + threadDump(), e);
                }
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    static String threadDump() {
        StringBuilder sb = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().startsWith("stress") || thread.getName().startsWith("wheel")) {
                sb.append('"')
                        .append(thread.getName())
                        .append("\" ")
                        .append(thread.getState())
                        .append('\n');
                for (int i = 0; i < Math.min(stack.length, 12); i++) {
                    sb.append("    at ").append(stack[i]).append('\n');
                }
            }
        });
        return sb.toString();
    }

    /** Delays at least this long never come due during a test; the stress always cancels them. */
    static final long NEVER_DUE = TimeUnit.HOURS.toNanos(1);

    /**
     * 5% exactly 0, 5% negative (some Long.MIN_VALUE), 3% up to four times the maximum, 1% one hour
     * or more, 0.5% Long.MAX_VALUE (its deadline overflows: never runs), else 0..max.
     */
    static long randomDelay(SplittableRandom random, long maxDelayNanos) {
        int dice = random.nextInt(1000);
        if (dice < 50) {
            return 0;
        }
        if (dice < 100) {
            return dice == 50 ? Long.MIN_VALUE : -1 - random.nextLong(1_000_000_000L);
        }
        if (dice < 130) {
            return random.nextLong(4 * maxDelayNanos + 1);
        }
        if (dice < 140) {
            return NEVER_DUE + random.nextLong(NEVER_DUE);
        }
        if (dice < 145) {
            return Long.MAX_VALUE;
        }
        return random.nextLong(maxDelayNanos + 1);
    }

    /** Many producers schedule and cancel while cancels race the expiry: each timeout runs exactly once or is cancelled exactly once. */
    @Nested
    @Group
    class ScheduleAndCancelRaces {

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
                        violations.add("id " + id + ": cancelled() called " + callbacks + " times, cancel() true "
                                + wins + " times");
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

    /** stop() racing newTimeout, two concurrent stop() calls, and the first newTimeout racing stop() on a timer never started. */
    @Nested
    @Group
    class StopRaces {

        /** One newTimeout call of a producer and what came of it. */
        static final class Call {
            final RecordingTask task = new RecordingTask("stress");
            Timeout handle;
            IllegalStateException thrown;
            boolean cancelledByProducer;
        }

        @Test
        @org.junit.jupiter.api.Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
        void stopRacingNewTimeoutLosesNothing() throws Exception {
            int rounds = 200;
            int producers = 3;
            long seed = System.nanoTime();
            SplittableRandom random = new SplittableRandom(seed);
            for (int round = 0; round < rounds; round++) {
                boolean hierarchical = random.nextBoolean();
                int tickMillis = 1 + random.nextInt(10);
                int stopAfterCalls = random.nextInt(3_000);
                long roundSeed = random.nextLong();
                String context = "round " + round + " (seed " + seed + ", hierarchical=" + hierarchical + ", tick="
                        + tickMillis + "ms, stop after " + stopAfterCalls + " calls)";
                HashedWheelTimer timer = HashedWheelTimer.builder()
                        .name("wheel-stop-race")
                        .tickDuration(Duration.ofMillis(tickMillis))
                        .ticksPerWheel(random.nextBoolean() ? 16 : 512)
                        .hierarchical(hierarchical)
                        .leakDetection(false)
                        .build();
                try {
                    // Started up front: a stop() racing the very first start() is a separate bug (see below).
                    timer.start();
                    AtomicInteger calls = new AtomicInteger();
                    AtomicBoolean stopping = new AtomicBoolean();
                    List<Callable<?>> bodies = new ArrayList<>();
                    for (int p = 0; p < producers; p++) {
                        long producerSeed = roundSeed + p;
                        bodies.add(() -> {
                            SplittableRandom r = new SplittableRandom(producerSeed);
                            List<Call> mine = new ArrayList<>();
                            while (true) {
                                Call call = new Call();
                                mine.add(call);
                                int dice = r.nextInt(100);
                                long delayNanos = dice < 70
                                        ? TimeUnit.HOURS.toNanos(1)
                                        : dice < 75 ? 0 : r.nextLong(TimeUnit.MILLISECONDS.toNanos(3 * tickMillis));
                                try {
                                    call.handle = timer.newTimeout(call.task, delayNanos, TimeUnit.NANOSECONDS);
                                } catch (IllegalStateException e) {
                                    call.thrown = e;
                                    return mine; // stopped: this producer is done
                                } finally {
                                    calls.incrementAndGet();
                                }
                                if (r.nextInt(10) == 0) {
                                    call.cancelledByProducer = call.handle.cancel();
                                }
                                if (stopping.get() || calls.get() >= stopAfterCalls) {
                                    // Keep racing stop(), but let the stopper and the worker run.
                                    Thread.yield();
                                }
                            }
                        });
                    }
                    AtomicReference<Set<Timeout>> stopped = new AtomicReference<>();
                    bodies.add(() -> {
                        while (calls.get() < stopAfterCalls) {
                            Thread.onSpinWait();
                        }
                        stopping.set(true);
                        stopped.set(timer.stop());
                        return null;
                    });
                    List<Object> results = runConcurrently(Duration.ofSeconds(60), bodies);
                    Set<Timeout> unprocessed = stopped.get();

                    Violations violations = new Violations();
                    Map<Timeout, Call> byHandle = new IdentityHashMap<>();
                    long handles = 0;
                    long ran = 0;
                    long cancelledByProducers = 0;
                    long threw = 0;
                    for (int p = 0; p < producers; p++) {
                        @SuppressWarnings("unchecked")
                        List<Call> mine = (List<Call>) results.get(p);
                        for (Call call : mine) {
                            RecordingTask task = call.task;
                            if (call.thrown != null) {
                                threw++;
                                if (!"cannot be started once stopped".equals(call.thrown.getMessage())) {
                                    violations.add("newTimeout threw " + call.thrown);
                                }
                                if (task.runs.get() != 0 || task.cancels.get() != 0) {
                                    violations.add("refused newTimeout, yet its task ran " + task.runs
                                            + " times and was" + " told cancelled " + task.cancels + " times");
                                }
                                continue;
                            }
                            handles++;
                            byHandle.put(call.handle, call);
                            boolean inSet = unprocessed.contains(call.handle);
                            boolean didRun = task.runs.get() > 0;
                            int outcomes = (inSet ? 1 : 0) + (didRun ? 1 : 0) + (call.cancelledByProducer ? 1 : 0);
                            if (outcomes != 1 || task.runs.get() > 1) {
                                violations.add(call.handle + ": ran " + task.runs + " times, in stop() set " + inSet
                                        + ", cancelled by producer " + call.cancelledByProducer
                                        + " (expected exactly one)");
                            }
                            if (didRun) {
                                ran++;
                                if (!call.handle.isExpired() || task.cancels.get() != 0) {
                                    violations.add(call.handle + " ran, but isExpired=" + call.handle.isExpired()
                                            + ", cancelled() calls " + task.cancels);
                                }
                            }
                            if (inSet || call.cancelledByProducer) {
                                if (!call.handle.isCancelled() || task.cancels.get() != 1) {
                                    violations.add(call.handle + " cancelled (by stop: " + inSet + "), but isCancelled="
                                            + call.handle.isCancelled() + ", cancelled() calls "
                                            + task.cancels);
                                }
                            }
                            if (call.cancelledByProducer) {
                                cancelledByProducers++;
                            }
                        }
                    }
                    for (Timeout t : unprocessed) {
                        if (!byHandle.containsKey(t)) {
                            violations.add("stop() returned a timeout no newTimeout returned: " + t);
                        }
                    }
                    violations.assertNone(context);
                    assertThat(threw)
                            .as("each producer ended on an IllegalStateException, " + context)
                            .isEqualTo(producers);
                    assertThat(timer.state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
                    assertThat(timer.pendingTimeouts())
                            .as("pendingTimeouts, " + context)
                            .isZero();
                    TimerStats stats = timer.stats();
                    assertThat(stats.pending()).as(context).isZero();
                    assertThat(stats.scheduled())
                            .as("scheduled == handles returned, " + context)
                            .isEqualTo(handles);
                    assertThat(stats.expired() + stats.cancelled())
                            .as("expired + cancelled, " + context)
                            .isEqualTo(stats.scheduled());
                    assertThat(stats.expired()).as("expired == ran, " + context).isEqualTo(ran);
                    assertThat(stats.cancelled())
                            .as("cancelled == stop set + producer cancels, " + context)
                            .isEqualTo(unprocessed.size() + cancelledByProducers);
                    assertThat(timer.stop()).as("second stop(), " + context).isEmpty();
                    assertThatThrownBy(() -> timer.newTimeout(t -> {}, 1, TimeUnit.SECONDS))
                            .isInstanceOf(IllegalStateException.class);
                    assertThat(timer.pendingTimeouts())
                            .as("pending after a refused newTimeout")
                            .isZero();
                } finally {
                    TestTimers.stopQuietly(timer);
                }
            }
        }

        @Test
        @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
        void concurrentStopHandsTheTimeoutsToExactlyOneCaller() throws Exception {
            for (int round = 0; round < 40; round++) {
                boolean hierarchical = round % 2 == 0;
                HashedWheelTimer timer = HashedWheelTimer.builder()
                        .name("wheel-double-stop")
                        .tickDuration(Duration.ofMillis(1))
                        .ticksPerWheel(32)
                        .hierarchical(hierarchical)
                        .leakDetection(false)
                        .build();
                try {
                    int n = 3_000;
                    Ledger ledger = new Ledger(n);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int id = 0; id < n; id++) {
                        // Most far away; a few short ones still expiring while stop() runs.
                        long delay = id % 10 == 0 ? random.nextLong(3_000_000) : TimeUnit.HOURS.toNanos(1) + id;
                        ledger.handles.set(id, timer.newTimeout(ledger.task(id), delay, TimeUnit.NANOSECONDS));
                    }
                    List<Object> results = runConcurrently(Duration.ofSeconds(60), List.of(timer::stop, timer::stop));
                    @SuppressWarnings("unchecked")
                    Set<Timeout> a = (Set<Timeout>) results.get(0);
                    @SuppressWarnings("unchecked")
                    Set<Timeout> b = (Set<Timeout>) results.get(1);
                    String context = "round " + round + ", sizes " + a.size() + " and " + b.size();
                    assertThat(a.isEmpty() != b.isEmpty())
                            .as("exactly one stop() gets the timeouts, " + context)
                            .isTrue();
                    Set<Timeout> winner = a.isEmpty() ? b : a;
                    // The loser may return before the winner finished: wait for the worker to end.
                    await().atMost(AWAIT).until(() -> !timer.workerThread().isAlive());

                    Violations violations = new Violations();
                    int ran = 0;
                    for (int id = 0; id < n; id++) {
                        Timeout handle = ledger.handles.get(id);
                        int runs = ledger.runs.get(id);
                        int callbacks = ledger.cancelledCallbacks.get(id);
                        boolean inSet = winner.contains(handle);
                        ran += runs;
                        if (runs + (inSet ? 1 : 0) != 1) {
                            violations.add("id " + id + ": ran " + runs + " times, in stop() set " + inSet);
                        }
                        if (inSet && (!handle.isCancelled() || callbacks != 1)) {
                            violations.add("id " + id + " in the set, isCancelled=" + handle.isCancelled()
                                    + ", cancelled() calls " + callbacks);
                        }
                        if (!inSet && callbacks != 0) {
                            violations.add("id " + id + " not in the set, yet cancelled() called " + callbacks);
                        }
                    }
                    violations.assertNone(context);
                    assertThat(winner).as(context).hasSize(n - ran);
                    assertThat(timer.pendingTimeouts()).isZero();
                    TimerStats stats = timer.stats();
                    assertThat(stats.scheduled()).isEqualTo(n);
                    assertThat(stats.expired()).isEqualTo(ran);
                    assertThat(stats.cancelled()).isEqualTo(winner.size());
                    assertThat(timer.stop()).isEmpty();
                } finally {
                    TestTimers.stopQuietly(timer);
                }
            }
        }

        /**
         * The first {@code newTimeout} (or {@code start()}) racing {@code stop()} on a timer that was
         * never started can hang forever. {@code start()} reads {@code INIT}, {@code stop()} then CASes
         * {@code INIT -> SHUTDOWN} and returns (without counting down {@code startedLatch}), the
         * {@code start()} CAS {@code INIT -> STARTED} fails, the switch falls through to
         * {@code awaitStarted()}, which waits (uninterruptibly) for a worker that will never start.
         * Expected: {@code newTimeout} throws {@code IllegalStateException} (or returns a handle that
         * stop() cancelled). The stop() thread's delay adapts so that the two calls keep landing
         * close together; it hangs within a few dozen rounds on a 2-core machine.
         */
        @Test
        @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
        void firstNewTimeoutRacingStopNeverHangs() throws Exception {
            ExecutorService threads = Executors.newCachedThreadPool(TestTimers.daemonThreads("stress-init-race"));
            try {
                int spin = 0;
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                for (int round = 0; round < 5_000 && System.nanoTime() < end; round++) {
                    HashedWheelTimer timer = HashedWheelTimer.builder()
                            .name("wheel-init-race")
                            .leakDetection(false)
                            .build();
                    AtomicInteger ready = new AtomicInteger();
                    int delay = spin;
                    Future<Object> producer = threads.submit(() -> {
                        ready.incrementAndGet();
                        while (ready.get() < 2) {
                            Thread.onSpinWait();
                        }
                        spin(-delay);
                        try {
                            return timer.newTimeout(t -> {}, 1, TimeUnit.HOURS);
                        } catch (IllegalStateException e) {
                            return e;
                        }
                    });
                    Future<Set<Timeout>> stopper = threads.submit(() -> {
                        ready.incrementAndGet();
                        while (ready.get() < 2) {
                            Thread.onSpinWait();
                        }
                        spin(delay);
                        return timer.stop();
                    });
                    Set<Timeout> unprocessed = stopper.get(30, TimeUnit.SECONDS);
                    Object outcome;
                    try {
                        outcome = producer.get(10, TimeUnit.SECONDS);
                    } catch (TimeoutException e) {
                        throw new AssertionError("round " + round + ": newTimeout racing stop() on an unstarted timer"
                                + " is still blocked after 10 s (state " + timer.state() + "):\n" + threadDump());
                    }
                    if (outcome instanceof Timeout) {
                        assertThat(unprocessed).as("round %d", round).contains((Timeout) outcome);
                    } else {
                        assertThat(outcome).isInstanceOf(IllegalStateException.class);
                    }
                    // Keep the two calls close: stop earlier if the timer got started, later if not.
                    boolean started = timer.workerThread().getState() != Thread.State.NEW;
                    spin += started ? -1 : 1;
                    TestTimers.stopQuietly(timer);
                }
            } finally {
                threads.shutdownNow();
            }
        }

        private static void spin(int iterations) {
            for (int i = 0; i < iterations; i++) {
                Thread.onSpinWait();
            }
        }
    }

    /** Concurrent cancel() of one timeout, and cancelled timeouts no longer referenced by the timer. */
    @Nested
    @Group
    class CancelRaces {

        @Test
        @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
        void concurrentCancelOfOneTimeoutSucceedsExactlyOnce() throws Exception {
            int cancellers = 4;
            int batches = 60;
            int batchSize = 1_000;
            int n = batches * batchSize;
            for (boolean hierarchical : new boolean[] {true, false}) {
                HashedWheelTimer timer = HashedWheelTimer.builder()
                        .name("wheel-cancel-race")
                        .tickDuration(Duration.ofMillis(1))
                        .ticksPerWheel(16)
                        .hierarchical(hierarchical)
                        .leakDetection(false)
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
                                long delay = kind == 0
                                        ? TimeUnit.HOURS.toNanos(1)
                                        : kind == 1 ? 0 : random.nextLong(3_000_000);
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

    /** upcoming() from reader threads while producers schedule and cancel. */
    @Nested
    @Group
    class UpcomingUnderLoad {

        @Test
        @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
        void upcomingIsSafeAndSortedWhileProducersScheduleAndCancel() throws Exception {
            HashedWheelTimer timer = HashedWheelTimer.builder()
                    .name("wheel-upcoming")
                    .tickDuration(Duration.ofMillis(1))
                    .ticksPerWheel(16)
                    .leakDetection(false)
                    .build();
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

    /** Tasks that schedule and cancel from inside the timer, while other threads cancel. */
    @Nested
    @Group
    class TasksInsideTheTimer {

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
            HashedWheelTimer.Builder builder = HashedWheelTimer.builder()
                    .name("wheel-chains")
                    .tickDuration(Duration.ofMillis(1))
                    .ticksPerWheel(4)
                    .hierarchical(hierarchical)
                    .leakDetection(false);
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
                                                new Link(chain, index + 1),
                                                random.nextInt(-1, 4),
                                                TimeUnit.MILLISECONDS));
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
}
