package io.wheeltimer.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.json.JsonMapper;

/**
 * Measurements that are not throughputs, one per JVM: {@code java ... Experiments EXPERIMENT
 * CONTENDER} prints one JSON line. run-benchmarks.sh runs each for every contender.
 *
 * <ul>
 *   <li>{@code retained}: heap bytes per pending timeout at 1,000,000 pending (100 ms tick);
 *   <li>{@code cpu-far}: worker CPU per second while 1,000,000 one-hour timeouts wait (1 ms tick);
 *   <li>{@code cpu-far-busy}: the same while a 1 ms timeout also fires on every tick (it reschedules
 *       itself), so the worker cannot sleep through: what a busy tick costs with far timeouts pending;
 *   <li>{@code cpu-idle}: worker CPU per second with nothing pending (1 ms tick);
 *   <li>{@code lateness}: 100,000 timeouts spread over 5 s (1 ms tick): how late each ran;
 *   <li>{@code bulk}: 1,000,000 timeouts due within the same 100 ms (1 ms tick): time until all ran.
 * </ul>
 */
public final class Experiments {

    private static final Runnable NOTHING = () -> { };
    private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

    private Experiments() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: Experiments retained|cpu-far|cpu-far-busy|cpu-idle|lateness|bulk CONTENDER");
        }
        Contender contender = Contender.valueOf(args[1]);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("experiment", args[0]);
        result.put("contender", contender.name());
        switch (args[0]) {
            case "retained" -> retained(contender, result);
            case "cpu-far" -> workerCpu(contender, 1_000_000, false, result);
            case "cpu-far-busy" -> workerCpu(contender, 1_000_000, true, result);
            case "cpu-idle" -> workerCpu(contender, 0, false, result);
            case "lateness" -> lateness(contender, result);
            case "bulk" -> bulk(contender, result);
            default -> throw new IllegalArgumentException("unknown experiment " + args[0]);
        }
        System.out.println(JsonMapper.builder().build().writeValueAsString(result));
        System.exit(0); // a timer thread must not keep the JVM alive
    }

    /** Records the threads a timer creates, to find its worker. */
    private static final class Threads implements ThreadFactory {
        final List<Thread> created = new ArrayList<>();

        @Override
        public synchronized Thread newThread(Runnable r) {
            Thread thread = new Thread(r, "timer-under-test");
            thread.setDaemon(true);
            created.add(thread);
            return thread;
        }

        synchronized Thread worker() {
            return created.get(0);
        }
    }

    private static void retained(Contender contender, Map<String, Object> result) throws InterruptedException {
        int count = 1_000_000;
        Contender.Timer timer = contender.create(100 * MILLI, 512, new Threads());
        timer.cancel(timer.schedule(NOTHING, 1, TimeUnit.HOURS)); // starts the worker
        Thread.sleep(500);
        long before = usedHeapAfterGc();
        for (int i = 0; i < count; i++) {
            timer.schedule(NOTHING, 1, TimeUnit.HOURS);
        }
        Thread.sleep(3000); // the workers take them in (Netty at most 100,000 a tick)
        long after = usedHeapAfterGc();
        result.put("pending", count);
        result.put("bytesPerTimeout", (double) (after - before) / count);
        timer.stop();
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            Runtime runtime = Runtime.getRuntime();
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }

    private static void workerCpu(Contender contender, int pending, boolean busy, Map<String, Object> result)
            throws InterruptedException {
        Threads threads = new Threads();
        Contender.Timer timer = contender.create(MILLI, 512, threads);
        timer.cancel(timer.schedule(NOTHING, 1, TimeUnit.HOURS));
        for (int i = 0; i < pending; i++) {
            timer.schedule(NOTHING, 1, TimeUnit.HOURS);
        }
        if (busy) {
            new Runnable() {
                @Override
                public void run() {
                    timer.schedule(this, 1, TimeUnit.MILLISECONDS);
                }
            }.run();
        }
        Thread.sleep(3000); // settle: everything taken into the wheel, JIT warm
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long id = threads.worker().getId();
        long seconds = 10;
        long cpu0 = mx.getThreadCpuTime(id);
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        long cpu1 = mx.getThreadCpuTime(id);
        result.put("pending", pending);
        result.put("busyEveryTick", busy);
        result.put("workerCpuMillisPerSecond", (cpu1 - cpu0) / 1e6 / seconds);
        timer.stop();
    }

    private static void lateness(Contender contender, Map<String, Object> result) throws InterruptedException {
        int count = 100_000;
        Contender.Timer timer = contender.create(MILLI, 512, new Threads());
        long[] late = new long[count];
        CountDownLatch done = new CountDownLatch(count);
        Random random = new Random(42);
        for (int i = 0; i < count; i++) {
            int index = i;
            long delay = (long) (random.nextDouble() * TimeUnit.SECONDS.toNanos(5));
            long deadline = System.nanoTime() + delay; // read before the timer reads its own clock
            timer.schedule(() -> {
                late[index] = System.nanoTime() - deadline;
                done.countDown();
            }, delay, TimeUnit.NANOSECONDS);
        }
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(done.getCount() + " timeouts did not run within 60 s");
        }
        long early = Arrays.stream(late).filter(l -> l < 0).count();
        Arrays.sort(late);
        result.put("timeouts", count);
        result.put("p50Millis", late[count / 2] / 1e6);
        result.put("p99Millis", late[(int) (count * 0.99)] / 1e6);
        result.put("maxMillis", late[count - 1] / 1e6);
        result.put("early", early);
        timer.stop();
    }

    private static void bulk(Contender contender, Map<String, Object> result) throws InterruptedException {
        int count = 1_000_000;
        Contender.Timer timer = contender.create(MILLI, 512, new Threads());
        AtomicLong ran = new AtomicLong();
        AtomicLong lastRan = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        Runnable task = () -> {
            if (ran.incrementAndGet() == count) {
                lastRan.set(System.nanoTime());
                done.countDown();
            }
        };
        long scheduleStart = System.nanoTime();
        long windowStart = scheduleStart + TimeUnit.SECONDS.toNanos(3);
        long window = TimeUnit.MILLISECONDS.toNanos(100);
        for (int i = 0; i < count; i++) {
            long deadline = windowStart + window * i / count;
            timer.schedule(task, deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
        long scheduled = System.nanoTime();
        if (!done.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException((count - ran.get()) + " timeouts did not run within 120 s");
        }
        result.put("timeouts", count);
        result.put("scheduleMillis", (scheduled - scheduleStart) / 1e6);
        result.put("allRanAfterWindowStartMillis", (lastRan.get() - windowStart) / 1e6);
        result.put("lagAfterLastDeadlineMillis", (lastRan.get() - windowStart - window) / 1e6);
        timer.stop();
    }
}
