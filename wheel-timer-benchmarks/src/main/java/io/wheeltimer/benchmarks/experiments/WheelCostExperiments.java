package io.wheeltimer.benchmarks.experiments;

import io.wheeltimer.benchmarks.jmh.Contender;
import io.wheeltimer.benchmarks.jmh.WorkerProbe;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link Experiments} that measure the wheel alone, on its worker's own clocks ({@link WorkerProbe}):
 * what recording lateness costs ({@code lateness-cost}) and what a flood of executor refusals costs
 * ({@code refusals}, {@code refusals-own}).
 */
final class WheelCostExperiments {

    private WheelCostExperiments() {}

    /**
     * The wheel's expiry cost with a lateness listener that records into a Micrometer Timer, against
     * none: the ordered bulk (1,000,000 due in 100 ms), three times each, alternating, one timer;
     * the worker's busy time (cascade + expire + dispatch) per pass, the best of each kind.
     */
    static void latenessCost(Contender contender, Map<String, Object> result) throws InterruptedException {
        if (contender != Contender.WHEEL_FLAT && contender != Contender.WHEEL_HIERARCHICAL) {
            throw new IllegalArgumentException("lateness-cost measures the wheel only, not " + contender);
        }
        io.wheeltimer.HashedWheelTimer timer = io.wheeltimer.HashedWheelTimer.builder()
                .tickDuration(java.time.Duration.ofMillis(1))
                .hierarchical(contender == Contender.WHEEL_HIERARCHICAL)
                .threadFactory(new WorkerThreads())
                .leakDetection(false)
                .build();
        WorkerProbe.reset(timer, false); // busy time per pass: the phases only, no CPU clock per round
        io.micrometer.core.instrument.MeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        io.micrometer.core.instrument.Timer lateness = io.micrometer.core.instrument.Timer.builder(
                        "wheel.timer.lateness")
                .register(registry);
        io.wheeltimer.LatenessListener recording = nanos -> lateness.record(nanos, TimeUnit.NANOSECONDS);
        double bestOff = Double.MAX_VALUE;
        double bestOn = Double.MAX_VALUE;
        double allRanOff = Double.MAX_VALUE;
        double allRanOn = Double.MAX_VALUE;
        for (int pass = 0; pass < 6; pass++) {
            boolean on = pass % 2 == 1;
            timer.setLatenessListener(on ? recording : null);
            double[] busyAndAllRan = orderedBulkBusyMillis(timer);
            if (on) {
                bestOn = Math.min(bestOn, busyAndAllRan[0]);
                allRanOn = Math.min(allRanOn, busyAndAllRan[1]);
            } else {
                bestOff = Math.min(bestOff, busyAndAllRan[0]);
                allRanOff = Math.min(allRanOff, busyAndAllRan[1]);
            }
        }
        timer.stop();
        result.put("timeouts", 1_000_000);
        result.put("expiryMillisWithout", bestOff);
        result.put("expiryMillisWith", bestOn);
        result.put("costPercent", (bestOn / bestOff - 1) * 100);
        result.put("allRanMillisWithout", allRanOff);
        result.put("allRanMillisWith", allRanOn);
        result.put("allRanCostPercent", (allRanOn / allRanOff - 1) * 100);
        result.put("recorded", lateness.count());
    }

    /**
     * Schedules the ordered bulk 1 s ahead, waits until all ran: the worker's busy time meanwhile and
     * the time from the window's start until all ran (ms).
     */
    private static double[] orderedBulkBusyMillis(io.wheeltimer.HashedWheelTimer timer) throws InterruptedException {
        int count = 1_000_000;
        AtomicLong ran = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        AtomicLong lastRan = new AtomicLong();
        io.wheeltimer.TimerTask task = t -> {
            if (ran.incrementAndGet() == count) {
                lastRan.set(System.nanoTime());
                done.countDown();
            }
        };
        long windowStart = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        long window = TimeUnit.MILLISECONDS.toNanos(100);
        for (int i = 0; i < count; i++) {
            timer.newTimeout(task, windowStart + window * i / count - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
        Thread.sleep(Math.max(0, (windowStart - System.nanoTime()) / 1_000_000 - 50));
        Map<String, Object> before = WorkerProbe.profile(timer);
        if (!done.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException((count - ran.get()) + " timeouts did not run within 120 s");
        }
        Thread.sleep(20); // the worker ends its round
        Map<String, Object> after = WorkerProbe.profile(timer);
        double busy = 0;
        for (String phase : List.of("cascadeMillis", "expireMillis", "dispatchMillis")) {
            busy += (double) after.get(phase) - (double) before.get(phase);
        }
        return new double[] {busy, (lastRan.get() - windowStart) / 1e6};
    }

    /**
     * 20,000 timeouts due in the same tick, each refused by the task executor (a shut-down pool,
     * whose refusal builds an exception with a stack trace): the worker's time for them, logging
     * included (to the JDK's default console handler, as an application without a logging setup).
     */
    static void refusals(Contender contender, Map<String, Object> result, boolean freeRefusal)
            throws InterruptedException {
        if (contender != Contender.WHEEL_FLAT && contender != Contender.WHEEL_HIERARCHICAL) {
            throw new IllegalArgumentException("refusals measures the wheel only, not " + contender);
        }
        int count = 20_000;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        pool.shutdown();
        java.util.concurrent.RejectedExecutionException prepared =
                new java.util.concurrent.RejectedExecutionException("refused (prepared exception)");
        java.util.concurrent.Executor refusing = freeRefusal
                ? command -> {
                    throw prepared;
                }
                : pool;
        WorkerThreads threads = new WorkerThreads();
        io.wheeltimer.HashedWheelTimer timer = io.wheeltimer.HashedWheelTimer.builder()
                .tickDuration(java.time.Duration.ofMillis(1))
                .hierarchical(contender == Contender.WHEEL_HIERARCHICAL)
                .threadFactory(threads)
                .leakDetection(false)
                .taskExecutor(refusing)
                .build();
        WorkerProbe.reset(timer, false); // the dispatch time of both floods
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double[] cold = refusalFlood(timer, threads, mx, count, count);
        double[] warm = refusalFlood(timer, threads, mx, count, 2L * count);
        Map<String, Object> profile = WorkerProbe.profile(timer);
        timer.stop();
        result.put("refusals", count);
        result.put("failedCounted", timer.stats().failed());
        result.put("workerCpuMillis", cold[0]);
        result.put("wallMillis", cold[1]);
        result.put("secondFloodWorkerCpuMillis", warm[0]);
        result.put("dispatchMillisBothFloods", profile.get("dispatchMillis"));
    }

    /** Schedules {@code count} timeouts due together in 500 ms; the worker's CPU time and the wall time until all were refused. */
    private static double[] refusalFlood(
            io.wheeltimer.HashedWheelTimer timer,
            WorkerThreads threads,
            ThreadMXBean mx,
            int count,
            long failedWhenDone)
            throws InterruptedException {
        io.wheeltimer.TimerTask task = t -> {};
        for (int i = 0; i < count; i++) {
            timer.newTimeout(task, 500, TimeUnit.MILLISECONDS);
        }
        Thread.sleep(300); // the worker takes them in before the measurement
        long workerId = threads.worker().getId();
        long cpu0 = mx.getThreadCpuTime(workerId);
        long start = System.nanoTime();
        long firstRefusal = 0;
        while (timer.stats().failed() < failedWhenDone) {
            if (firstRefusal == 0 && timer.stats().failed() > failedWhenDone - count) {
                firstRefusal = System.nanoTime();
            }
            if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(60)) {
                throw new IllegalStateException("only " + timer.stats().failed() + " refused within 60 s");
            }
            Thread.sleep(1);
        }
        long end = System.nanoTime();
        long cpu1 = mx.getThreadCpuTime(workerId);
        return new double[] {(cpu1 - cpu0) / 1e6, (end - (firstRefusal == 0 ? end : firstRefusal)) / 1e6};
    }
}
