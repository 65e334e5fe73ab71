package io.wheeltimer.benchmarks.jmh;

import io.wheeltimer.benchmarks.jmh.HeartbeatBenchmark.Scheduler;
import io.wheeltimer.benchmarks.jmh.HeartbeatBenchmark.Schedulers;
import io.wheeltimer.benchmarks.jmh.HeartbeatBenchmark.Session;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import javax.management.ObjectName;

/**
 * What one re-arm of {@link HeartbeatBenchmark} allocates, class by class, where JMH's {@code
 * gc.alloc.rate.norm} gives only the total: re-arms on one thread as the benchmark's {@code
 * oneThread} does, a class histogram of the whole heap before and after {@code MEASURED} of them
 * (after {@code WARM} to let the JIT settle), and the difference per re-arm. Only what the JIT still
 * allocates is counted: an object it scalar-replaces is in no histogram, as in no JMH figure.
 *
 * <p>Run it under Epsilon GC, which never collects, so that the histograms hold every object made
 * between them, with a heap of some 160 B per re-arm in all:
 *
 * <pre>
 * java -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC -Xmx10g -cp CLASSPATH \
 *     io.wheeltimer.benchmarks.HeartbeatAllocations WHEEL|SPRING_ONE_THREAD|SPRING_CPU_THREADS [WARM MEASURED]
 * </pre>
 *
 * It prints each class whose objects add at least 0.01 B per re-arm: objects and bytes per re-arm.
 */
public final class HeartbeatAllocations {

    private HeartbeatAllocations() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1 && args.length != 3) {
            throw new IllegalArgumentException(
                    "usage: HeartbeatAllocations WHEEL|SPRING_ONE_THREAD|SPRING_CPU_THREADS [WARM MEASURED]");
        }
        Schedulers schedulers = new Schedulers();
        schedulers.scheduler = Scheduler.valueOf(args[0]);
        long warm = args.length == 3 ? Long.parseLong(args[1]) : 10_000_000;
        long measured = args.length == 3 ? Long.parseLong(args[2]) : 5_000_000;
        schedulers.start();
        try {
            Session[] sessions = new Session[HeartbeatBenchmark.SESSIONS];
            for (int i = 0; i < sessions.length; i++) {
                sessions[i] = new Session();
                HeartbeatBenchmark.rearm(schedulers.taskScheduler, sessions[i]);
            }
            rearm(schedulers, sessions, warm);
            Map<String, long[]> before = histogram();
            rearm(schedulers, sessions, measured);
            Map<String, long[]> after = histogram();
            print(schedulers.scheduler, before, after, measured);
        } finally {
            schedulers.stop();
        }
    }

    private static void rearm(Schedulers schedulers, Session[] sessions, long count) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (long i = 0; i < count; i++) {
            HeartbeatBenchmark.rearm(schedulers.taskScheduler, sessions[random.nextInt(sessions.length)]);
        }
    }

    private static void print(Scheduler scheduler, Map<String, long[]> before, Map<String, long[]> after, long rearms) {
        double total = 0;
        StringBuilder lines = new StringBuilder();
        for (Map.Entry<String, long[]> entry : after.entrySet()) {
            long[] earlier = before.getOrDefault(entry.getKey(), new long[2]);
            double objects = (double) (entry.getValue()[0] - earlier[0]) / rearms;
            double bytes = (double) (entry.getValue()[1] - earlier[1]) / rearms;
            total += bytes;
            if (bytes >= 0.01) {
                lines.append(
                        String.format(Locale.ROOT, "  %-75s %7.3f objects %8.2f B%n", entry.getKey(), objects, bytes));
            }
        }
        System.out.printf(
                Locale.ROOT, "%s, per re-arm (%,d re-arms):%n%s  total %.2f B%n", scheduler, rearms, lines, total);
    }

    /** Objects and bytes by class name, every object in the heap counted ({@code -all}: no collection first). */
    private static Map<String, long[]> histogram() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer()
                .invoke(
                        new ObjectName("com.sun.management:type=DiagnosticCommand"),
                        "gcClassHistogram",
                        new Object[] {new String[] {"-all"}},
                        new String[] {String[].class.getName()});
        Map<String, long[]> classes = new TreeMap<>();
        for (String line : text.split("\n")) {
            // " 1:  5000000  240000000  io.wheeltimer.TimeoutHandle (module)": rank, objects, bytes, class
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 4 && fields[0].endsWith(":")) {
                classes.put(fields[3], new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])});
            }
        }
        return classes;
    }
}
