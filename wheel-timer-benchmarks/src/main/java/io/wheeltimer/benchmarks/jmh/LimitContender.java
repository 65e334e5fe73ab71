package io.wheeltimer.benchmarks.jmh;

import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;
import io.wheeltimer.HashedWheelTimer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The ways to give a {@link CompletableFuture} a deadline that are compared, each set up as a user
 * would: this timer's {@code Timer.orTimeout}, the JDK's {@code CompletableFuture.orTimeout} (its
 * single static delayer thread) and Resilience4j's {@code TimeLimiter} on the scheduler its
 * documentation shows.
 */
public enum LimitContender {
    WHEEL("wheel-timer Timer.orTimeout (hierarchical, 1 ms tick)"),
    JDK("JDK CompletableFuture.orTimeout"),
    RESILIENCE4J("Resilience4j TimeLimiter");

    /** A deadline-giver under test. */
    public interface Limiter {
        /** Gives {@code future} a deadline of {@code limit}; returns what the caller waits on. */
        CompletionStage<Object> limit(CompletableFuture<Object> future, Duration limit);

        void stop();
    }

    private final String label;

    LimitContender(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public Limiter create() {
        switch (this) {
            case WHEEL: {
                // The starter's default layout; a 1 ms tick so the deadlines are as exact as the JDK's.
                HashedWheelTimer timer = HashedWheelTimer.builder()
                        .tickDuration(Duration.ofMillis(1))
                        .ticksPerWheel(512)
                        .hierarchical(true)
                        .leakDetection(false)
                        .build();
                return new Limiter() {
                    @Override
                    public CompletionStage<Object> limit(CompletableFuture<Object> future, Duration limit) {
                        return timer.orTimeout(future, limit);
                    }

                    @Override
                    public void stop() {
                        timer.stop();
                    }
                };
            }
            case JDK:
                return new Limiter() {
                    @Override
                    public CompletionStage<Object> limit(CompletableFuture<Object> future, Duration limit) {
                        return future.orTimeout(limit.toNanos(), TimeUnit.NANOSECONDS);
                    }

                    @Override
                    public void stop() {
                        // the JDK's delayer thread is static and a daemon
                    }
                };
            default: {
                // Resilience4j has no scheduler of its own: its documentation uses this one.
                ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(3);
                Map<Duration, TimeLimiter> limiters = new ConcurrentHashMap<>(); // one config per limit
                return new Limiter() {
                    @Override
                    public CompletionStage<Object> limit(CompletableFuture<Object> future, Duration limit) {
                        TimeLimiter limiter = limiters.computeIfAbsent(
                                limit,
                                l -> TimeLimiter.of(TimeLimiterConfig.custom()
                                        .timeoutDuration(l)
                                        .build()));
                        return limiter.executeCompletionStage(scheduler, () -> future);
                    }

                    @Override
                    public void stop() {
                        scheduler.shutdownNow();
                    }
                };
            }
        }
    }
}
