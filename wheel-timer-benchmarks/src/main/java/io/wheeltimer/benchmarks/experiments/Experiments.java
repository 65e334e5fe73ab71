package io.wheeltimer.benchmarks.experiments;

import io.wheeltimer.benchmarks.jmh.Contender;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
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
 *   <li>{@code bulk-random}: the same with deadlines drawn at random in a window 5 s ahead and
 *       scheduled in that random order: time until all ran, how late, and the wheel's worker profile
 *       (time per phase, longest round);
 *   <li>{@code lateness-cost}: wheel only: the worker's expiry time for the bulk with and without a
 *       {@code LatenessListener} recording into a Micrometer {@code Timer};
 *   <li>{@code refusals}: wheel only: the worker's cost of 20,000 executor refusals due at once;
 *       {@code refusals-own} the same with an executor whose refusal costs nothing (it throws one
 *       prepared exception): the timer's own share.
 * </ul>
 */
public final class Experiments {

    private static final Runnable NOTHING = () -> {};
    private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

    private Experiments() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException(
                    "usage: Experiments retained|cpu-far|cpu-far-busy|cpu-idle|lateness|bulk|bulk-random|lateness-cost|refusals|refusals-own CONTENDER");
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
            case "bulk-random" -> bulkRandom(contender, result);
            case "lateness-cost" -> WheelCostExperiments.latenessCost(contender, result);
            case "refusals" -> WheelCostExperiments.refusals(contender, result, false);
            case "refusals-own" -> WheelCostExperiments.refusals(contender, result, true);
            default -> throw new IllegalArgumentException("unknown experiment " + args[0]);
        }
        System.out.println(JsonMapper.builder().build().writeValueAsString(result));
        System.exit(0); // a timer thread must not keep the JVM alive
    }

    private static void retained(Contender contender, Map<String, Object> result) throws InterruptedException {
        int count = 1_000_000;
        Contender.Timer timer = contender.create(100 * MILLI, 512, new WorkerThreads());
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
        WorkerThreads threads = new WorkerThreads();
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
        Contender.Timer timer = contender.create(MILLI, 512, new WorkerThreads());
        long[] late = new long[count];
        CountDownLatch done = new CountDownLatch(count);
        Random random = new Random(42);
        for (int i = 0; i < count; i++) {
            int index = i;
            long delay = (long) (random.nextDouble() * TimeUnit.SECONDS.toNanos(5));
            long deadline = System.nanoTime() + delay; // read before the timer reads its own clock
            timer.schedule(
                    () -> {
                        late[index] = System.nanoTime() - deadline;
                        done.countDown();
                    },
                    delay,
                    TimeUnit.NANOSECONDS);
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
        Contender.Timer timer = contender.create(MILLI, 512, new WorkerThreads());
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

    // --- random-order bulk -------------------------------------------------------------------

    /** bulk-random: the warm-up's first part, and the windows of its second part and of the measured run. */
    private static final int WARM_UP = 400_000;

    private static final long WARM_UP_WINDOW = TimeUnit.SECONDS.toNanos(2);
    private static final long WINDOW = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * 1,000,000 timeouts, deadlines at random in a 100 ms window 5 s ahead, scheduled in that
     * random order, one shared no-op task, 1 ms tick, 512 buckets. Every 64th run reads the clock;
     * timers fire in tick order, so the n-th run is compared with the n-th earliest deadline.
     *
     * <p>First an unmeasured warm-up, so that the JIT has compiled the expiry path of every contender
     * as in a service that has been running: 400,000 the same way but due over 2 s from 1 s ahead
     * (2,000 ticks, so that the per-tick code is called often enough to be compiled fully), then
     * 1,000,000 in 100 ms from 1.5 s ahead (so that it is compiled for ticks this full, not
     * deoptimized at the window's start). Cold, the first ticks of the window run interpreted and
     * every timer falls tens of ticks behind. The wheel's worker profile is reset after the warm-up.
     */
    private static void bulkRandom(Contender contender, Map<String, Object> result) throws InterruptedException {
        int count = 1_000_000;
        Contender.Timer timer = contender.create(MILLI, 512, new WorkerThreads());
        timer.cancel(timer.schedule(NOTHING, 1, TimeUnit.HOURS)); // starts the worker
        randomBulk(timer, WARM_UP, TimeUnit.SECONDS.toNanos(1), WARM_UP_WINDOW, 7);
        randomBulk(timer, count, TimeUnit.MILLISECONDS.toNanos(1500), WINDOW, 8);
        Thread.sleep(500); // the worker ends the round that ran the last one, and sleeps
        timer.resetWorkerProfile();
        double[] allRanAndLate = randomBulk(timer, count, TimeUnit.SECONDS.toNanos(5), WINDOW, 42);
        timer.stop();
        result.put("timeouts", count);
        result.put("warmUpTimeouts", WARM_UP + count);
        result.put("allRanAfterWindowStartMillis", allRanAndLate[0]);
        result.put("maxLateTicks", allRanAndLate[1]);
        result.putAll(timer.workerProfile());
    }

    /**
     * Schedules {@code count} timeouts due at random in a {@code window} (ns) {@code ahead} from now,
     * in that random order, and waits until all ran.
     *
     * @return ms from the window's start until all ran, and the worst lateness in ticks
     */
    private static double[] randomBulk(Contender.Timer timer, int count, long ahead, long window, long seed)
            throws InterruptedException {
        Random random = new Random(seed);
        long[] offsets = new long[count];
        for (int i = 0; i < count; i++) {
            offsets[i] = (long) (random.nextDouble() * window);
        }
        int sampleEvery = 64;
        long[] sampled = new long[count / sampleEvery + 1];
        AtomicLong ran = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        Runnable task = () -> {
            long n = ran.incrementAndGet();
            if (n % sampleEvery == 0 || n == count) {
                sampled[(int) ((n - 1) / sampleEvery)] = System.nanoTime();
            }
            if (n == count) {
                done.countDown();
            }
        };
        long windowStart = System.nanoTime() + ahead;
        for (int i = 0; i < count; i++) {
            timer.schedule(task, windowStart + offsets[i] - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
        if (!done.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException((count - ran.get()) + " timeouts did not run within 120 s");
        }
        Arrays.sort(offsets);
        long maxLate = Long.MIN_VALUE;
        for (int k = 0; k < sampled.length; k++) {
            long n = Math.min((long) (k + 1) * sampleEvery, count); // 1-based run number
            if (sampled[k] != 0) {
                maxLate = Math.max(maxLate, sampled[k] - windowStart - offsets[(int) n - 1]);
            }
        }
        long last = sampled[(count - 1) / sampleEvery];
        return new double[] {(last - windowStart) / 1e6, maxLate / (double) MILLI};
    }
}
