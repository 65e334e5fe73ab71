package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.regex.Pattern;

/**
 * What the concurrency stress tests share (one class per race, named for it) and what they
 * check: stress tests of {@link HashedWheelTimer} in real time (system ticker): many producer
 * threads scheduling and cancelling, cancels racing expiry, {@code stop()} racing {@code newTimeout},
 * concurrent {@code stop()}, concurrent {@code cancel()}, {@code upcoming()} while the timer is busy,
 * cancelled timeouts being released, tasks that schedule and cancel from inside the timer, and a
 * jqwik property running a short randomised version of the first.
 *
 * <p>Nothing here asserts timing beyond "never early" (which holds however loaded the machine is):
 * every check is an invariant of the outcome (each timeout ran exactly once XOR was cancelled
 * exactly once, nothing lost, counts exact). Waits are generous because CI machines are shared.
 */
final class StressSupport {

    private StressSupport() {}

    static final Duration AWAIT = Duration.ofSeconds(60);
    static final Pattern TASK_NAME = Pattern.compile("task-\\d+");

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

    /** A real-time timer for a stress test: 1 ms ticks (the most rounds), no leak report. */
    static HashedWheelTimer.Builder stressTimer(String name) {
        return HashedWheelTimer.builder()
                .name(name)
                .tickDuration(Duration.ofMillis(1))
                .leakDetection(false);
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
}
