package io.wheeltimer.benchmarks.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Request traffic: each thread keeps {@value #IN_FLIGHT} thirty-second timeouts outstanding. An
 * operation schedules one and cancels the one the same thread scheduled {@value #IN_FLIGHT}
 * operations earlier, the way responses arrive; so cancels hit timeouts the worker has taken into
 * the wheel. The default tick (100 ms) and a 1 ms tick, 512 buckets.
 */
public class InFlightBenchmark extends TimerThroughputBenchmark {

    static final int IN_FLIGHT = 1_000;

    @Param({"WHEEL_FLAT", "WHEEL_HIERARCHICAL", "NETTY"})
    public Contender contender;

    @Override
    Contender contender() {
        return contender;
    }

    /** One thread's outstanding timeouts, oldest at {@code next}. */
    @State(Scope.Thread)
    public static class Outstanding {
        final Object[] handles = new Object[IN_FLIGHT];
        int next;

        @Setup
        public void fill(InFlightBenchmark benchmark) {
            for (int i = 0; i < IN_FLIGHT; i++) {
                handles[i] = benchmark.timer.schedule(NOTHING, 30, TimeUnit.SECONDS);
            }
        }

        @TearDown
        public void drain(InFlightBenchmark benchmark) {
            for (Object handle : handles) {
                benchmark.timer.cancel(handle);
            }
        }
    }

    private void op(Outstanding outstanding) {
        Object fresh = timer.schedule(NOTHING, 30, TimeUnit.SECONDS);
        int i = outstanding.next;
        timer.cancel(outstanding.handles[i]);
        outstanding.handles[i] = fresh;
        outstanding.next = i + 1 == IN_FLIGHT ? 0 : i + 1;
    }

    @Benchmark
    @Threads(1)
    public void oneThread(Outstanding outstanding) {
        op(outstanding);
    }

    @Benchmark
    @Threads(2)
    public void twoThreads(Outstanding outstanding) {
        op(outstanding);
    }
}
