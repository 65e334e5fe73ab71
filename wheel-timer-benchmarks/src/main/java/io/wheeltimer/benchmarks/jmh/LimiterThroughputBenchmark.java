package io.wheeltimer.benchmarks.jmh;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A throughput benchmark of the limit-then-complete pattern: a new future gets a {@link #LIMIT} deadline
 * from a {@link LimitContender.Limiter}, one per trial, then completes at once (the call answered in time),
 * so its deadline is cancelled.
 */
public abstract class LimiterThroughputBenchmark extends ThroughputBenchmark {

    static final Duration LIMIT = Duration.ofSeconds(1);
    static final Object ANSWER = new Object();

    LimitContender.Limiter limiter;

    /** The limiter of this trial. */
    abstract LimitContender.Limiter createLimiter();

    @Setup
    public void start() {
        limiter = createLimiter();
    }

    @TearDown
    public void stop() {
        limiter.stop();
    }

    /** Limits a new future by {@code limit}, then completes it: what one operation does. */
    static CompletionStage<Object> limitThenComplete(LimitContender.Limiter limit) {
        CompletableFuture<Object> future = new CompletableFuture<>();
        CompletionStage<Object> limited = limit.limit(future, LIMIT);
        future.complete(ANSWER);
        return limited;
    }
}
