package io.wheeltimer.benchmarks.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;

/**
 * The request-timeout pattern: schedule a 30 s timeout, then cancel it at once (the response came
 * in time). The default tick (100 ms) and a 1 ms tick, 512 buckets, for every contender that has
 * them (the JDK executor has neither).
 */
public class ScheduleCancelBenchmark extends TimerThroughputBenchmark {

    @Param({"WHEEL_FLAT", "WHEEL_HIERARCHICAL", "NETTY", "JDK"})
    public Contender contender;

    @Override
    Contender contender() {
        return contender;
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
