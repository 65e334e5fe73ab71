package io.wheeltimer.benchmarks.experiments;

import io.wheeltimer.benchmarks.jmh.LimitContender;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.json.JsonMapper;

/**
 * The time-limit measurement, one per JVM as in {@link Experiments}:
 * {@code java ... TimeLimitExperiments limit-bulk CONTENDER} prints one JSON line for a
 * {@link LimitContender}. {@code limit-bulk}: 1,000,000
 * futures whose deadlines all pass within the same 100 ms window, 3 s after scheduling starts,
 * none completed: when had the last timed out? The futures carry no callback of the measurement's
 * own (it would be part of every expiry): the main thread sleeps until the window ends, then checks
 * them in deadline order. A service's deadlines pass on warm code, so deadlines pass first,
 * unmeasured, to let the JIT compile each contender's expiry path: 200,000 spread over 2 s (2,000
 * ticks, so that per-tick code is called often enough to be compiled fully), then 1,000,000 the same
 * way as the measured ones but 1.5 s ahead, so that the code is compiled for ticks this full and for
 * deadlines this far (on a wheel, in an overflow level), not deoptimized at the window's start.
 */
public final class TimeLimitExperiments {

    private TimeLimitExperiments() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !args[0].equals("limit-bulk")) {
            throw new IllegalArgumentException("usage: TimeLimitExperiments limit-bulk WHEEL|JDK|RESILIENCE4J");
        }
        LimitContender contender = LimitContender.valueOf(args[1]);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("experiment", args[0]);
        result.put("contender", contender.name());
        bulk(contender, result);
        System.out.println(JsonMapper.builder().build().writeValueAsString(result));
        System.exit(0); // a timer thread must not keep the JVM alive
    }

    private static void bulk(LimitContender contender, Map<String, Object> result) throws InterruptedException {
        int count = 1_000_000;
        LimitContender.Limiter limiter = contender.create();
        warmUp(limiter);
        window(limiter, count, TimeUnit.MILLISECONDS.toNanos(1500), new LinkedHashMap<>());
        window(limiter, count, TimeUnit.SECONDS.toNanos(3), result);
        limiter.stop();
    }

    /**
     * {@code count} futures whose deadlines pass evenly within 100 ms from {@code ahead} after
     * scheduling starts; waits until all timed out and puts the figures into {@code result}.
     */
    private static void window(LimitContender.Limiter limiter, int count, long ahead, Map<String, Object> result)
            throws InterruptedException {
        CompletableFuture<?>[] limited = new CompletableFuture<?>[count];
        long scheduleStart = System.nanoTime();
        long windowStart = scheduleStart + ahead;
        long window = TimeUnit.MILLISECONDS.toNanos(100);
        for (int i = 0; i < count; i++) {
            long deadline = windowStart + window * i / count;
            // Whole milliseconds: Resilience4j needs one TimeLimiter per distinct limit.
            long limitMillis = Math.max(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()), 0);
            limited[i] = limiter.limit(new CompletableFuture<>(), Duration.ofMillis(limitMillis))
                    .toCompletableFuture();
        }
        long scheduled = System.nanoTime();
        long windowEnd = windowStart + window;
        TimeUnit.NANOSECONDS.sleep(Math.max(windowEnd - System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(1), 0));
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        for (CompletableFuture<?> future : limited) {
            while (!future.isDone()) {
                if (System.nanoTime() - giveUp > 0) {
                    throw new IllegalStateException("deadlines did not fire within 180 s");
                }
                Thread.sleep(0, 100_000); // leave the cores to the timer
            }
        }
        long lastFired = System.nanoTime();
        long notTimedOut = java.util.Arrays.stream(limited)
                .filter(f -> !f.isCompletedExceptionally())
                .count();
        result.put("deadlines", count);
        result.put("scheduleMillis", (scheduled - scheduleStart) / 1e6);
        result.put("allFiredAfterWindowStartMillis", (lastFired - windowStart) / 1e6);
        result.put("lagAfterLastDeadlineMillis", (lastFired - windowEnd) / 1e6);
        result.put("notTimedOut", notTimedOut);
    }

    private static void warmUp(LimitContender.Limiter limiter) throws InterruptedException {
        int count = 200_000;
        CountDownLatch done = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            CompletionStage<Object> stage = limiter.limit(new CompletableFuture<>(), Duration.ofMillis(1 + i % 2000));
            stage.handle((v, e) -> {
                done.countDown();
                return null;
            });
        }
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(done.getCount() + " warm-up deadlines did not fire within 60 s");
        }
    }
}
