package io.wheeltimer.benchmarks.jmh;

import java.util.concurrent.Executors;
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
 * The request-timeout pattern: schedule a 30 s timeout, then cancel it at once (the response came
 * in time). The default tick (100 ms) and a 1 ms tick, 512 buckets, for every contender that has
 * them (the JDK executor has neither).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseG1GC", "-XX:+AlwaysPreTouch"})
public class ScheduleCancelBenchmark {

    private static final Runnable NOTHING = () -> {};

    @Param({"WHEEL_FLAT", "WHEEL_HIERARCHICAL", "NETTY", "JDK"})
    public Contender contender;

    @Param({"100", "1"})
    public int tickMillis;

    private Contender.Timer timer;

    @Setup
    public void start() {
        timer = contender.create(TimeUnit.MILLISECONDS.toNanos(tickMillis), 512, Executors.defaultThreadFactory());
    }

    @TearDown
    public void stop() {
        timer.stop();
    }

    @Benchmark
    @Threads(1)
    public void oneThread() {
        timer.cancel(timer.schedule(NOTHING, 30, TimeUnit.SECONDS));
    }

    @Benchmark
    @Threads(2)
    public void twoThreads() {
        timer.cancel(timer.schedule(NOTHING, 30, TimeUnit.SECONDS));
    }
}
