package io.wheeltimer.benchmarks.jmh;

import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A throughput benchmark of a {@link Contender}'s timer, one per trial: at the default tick (100 ms) and a
 * 1 ms tick, 512 buckets. The subclass names the contenders, as its own JMH parameter.
 */
public abstract class TimerThroughputBenchmark extends ThroughputBenchmark {

    static final Runnable NOTHING = () -> {};

    @Param({"100", "1"})
    public int tickMillis;

    Contender.Timer timer;

    /** The contender of this trial. */
    abstract Contender contender();

    @Setup
    public void start() {
        timer = contender().create(TimeUnit.MILLISECONDS.toNanos(tickMillis), 512, Executors.defaultThreadFactory());
    }

    @TearDown
    public void stop() {
        timer.stop();
    }
}
