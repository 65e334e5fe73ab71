package io.wheeltimer.benchmarks.jmh;

import java.util.concurrent.CompletionStage;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;

/**
 * The limit-then-complete pattern: a new future gets a 1 s deadline, then completes at once (the
 * call answered in time), so its deadline is cancelled. Bytes per operation include the future
 * itself, which every contender gets.
 */
public class TimeLimitBenchmark extends LimiterThroughputBenchmark {

    @Param({"WHEEL", "JDK", "RESILIENCE4J"})
    public LimitContender contender;

    @Override
    LimitContender.Limiter createLimiter() {
        return contender.create();
    }

    @Benchmark
    @Threads(1)
    public CompletionStage<Object> oneThread() {
        return limitThenComplete(limiter);
    }

    @Benchmark
    @Threads(2)
    public CompletionStage<Object> twoThreads() {
        return limitThenComplete(limiter);
    }
}
