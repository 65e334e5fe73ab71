package io.wheeltimer.benchmarks.jmh;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The limit-then-complete pattern: a new future gets a 1 s deadline, then completes at once (the
 * call answered in time), so its deadline is cancelled. Bytes per operation include the future
 * itself, which every contender gets.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseG1GC", "-XX:+AlwaysPreTouch"})
public class TimeLimitBenchmark {

    private static final Duration LIMIT = Duration.ofSeconds(1);
    private static final Object ANSWER = new Object();

    @Param({"WHEEL", "JDK", "RESILIENCE4J"})
    public LimitContender contender;

    private LimitContender.Limiter limiter;

    @Setup
    public void start() {
        limiter = contender.create();
    }

    @TearDown
    public void stop() {
        limiter.stop();
    }

    @Benchmark
    @Threads(1)
    public CompletionStage<Object> oneThread() {
        return limitThenComplete();
    }

    @Benchmark
    @Threads(2)
    public CompletionStage<Object> twoThreads() {
        return limitThenComplete();
    }

    private CompletionStage<Object> limitThenComplete() {
        CompletableFuture<Object> future = new CompletableFuture<>();
        CompletionStage<Object> limited = limiter.limit(future, LIMIT);
        future.complete(ANSWER);
        return limited;
    }
}
