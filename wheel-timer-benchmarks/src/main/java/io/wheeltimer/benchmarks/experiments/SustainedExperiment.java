package io.wheeltimer.benchmarks.experiments;

import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * A sustained load on several instances sharing one database: {@code java ... SustainedExperiment
 * CONTENDER INSTANCES [DATABASE]} starts one throwaway server, then, for each rate of a rising series,
 * a fresh table and {@code INSTANCES} instances of the contender, each in a JVM of its own. For {@value
 * #DEFAULT_SECONDS} s every instance schedules its share of the rate (on {@value #CALLERS} threads, each
 * call alone in auto-commit), each timeout due {@value #LEAD_MILLIS} ms after it was scheduled, while all
 * of them fire what is due. Afterwards the runs of all instances are put together: how late each started
 * after its deadline (p50, p99, max), how many ran twice, how many did not run within {@value
 * #GRACE_MILLIS} ms of the last deadline. One JSON line per rate; the series stops after the first rate
 * whose p99 passes {@value #P99_LIMIT_MILLIS} ms or that lost or repeated anything.
 *
 * <p>The environment sets the series ({@code RATES}, timeouts a second across all instances, default
 * {@value #DEFAULT_RATES}) and the window ({@code WINDOW_SECONDS}); {@code QUICK=1} a smoke run of 5 s at 200
 * and 400 a second. The instances reach the database through
 * HikariCP pools of {@value DurableExperiments#POOL_SIZE} connections each, as in {@link DurableExperiments}.
 */
public final class SustainedExperiment {

    static final String DEFAULT_RATES = "500,1000,1500,2000,3000,4000,6000,8000";
    static final int DEFAULT_SECONDS = 60;
    static final int LEAD_MILLIS = 2_000;
    static final int GRACE_MILLIS = 10_000;
    static final int P99_LIMIT_MILLIS = 100;
    static final int CALLERS = 4;
    /** Time the instances' JVMs are given to start and poll once before the window opens. */
    static final int START_MILLIS = 20_000;

    public static void main(String[] args) throws Exception {
        if (args.length >= 1 && args[0].equals("instance")) {
            Instance.run(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length < 2 || args.length > 3) {
            throw new IllegalArgumentException(
                    "usage: SustainedExperiment DURABLE|DB_SCHEDULER_TUNED|DB_SCHEDULER INSTANCES [postgresql|mariadb],"
                            + " not " + List.of(args));
        }
        DurableContender contender = DurableContender.valueOf(args[0]);
        int instances = Integer.parseInt(args[1]);
        DurableDatabase database = DurableDatabase.of(args.length > 2 ? args[2] : "postgresql");
        boolean quick = "1".equals(System.getenv("QUICK")); // a smoke run: numbers meaningless
        int seconds = Integer.parseInt(
                System.getenv().getOrDefault("WINDOW_SECONDS", quick ? "5" : String.valueOf(DEFAULT_SECONDS)));
        List<Integer> rates = Arrays.stream(System.getenv()
                        .getOrDefault("RATES", quick ? "200,400" : DEFAULT_RATES)
                        .split(","))
                .map(String::strip)
                .map(Integer::parseInt)
                .toList();
        Path work = Files.createTempDirectory("sustained-");
        try (DurableDatabase.Server server = database.start()) {
            String url = server.createDatabase("bench_sustained");
            for (int rate : rates) {
                Map<String, Object> line = trial(contender, instances, database, server, url, rate, seconds, work);
                System.out.println(json(line));
                if (!(boolean) line.get("held")) {
                    break;
                }
            }
        }
    }

    /** One rate: a fresh table, the instances started together, their runs put together. */
    private static Map<String, Object> trial(
            DurableContender contender,
            int instances,
            DurableDatabase database,
            DurableDatabase.Server server,
            String url,
            int rate,
            int seconds,
            Path work)
            throws Exception {
        try (HikariDataSource pool = pool(url, server.username())) {
            JdbcTemplate jdbc = new JdbcTemplate(pool);
            jdbc.execute("DROP TABLE IF EXISTS " + contender.table());
            if (contender == DurableContender.DURABLE) {
                jdbc.execute("DROP TABLE IF EXISTS wheel_timer_timeouts_instances");
            }
            database.tableStatements(contender).forEach(jdbc::execute);
        }
        long startMillis = System.currentTimeMillis() + START_MILLIS;
        List<Process> processes = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        String classPath = System.getProperty("java.class.path");
        for (int i = 0; i < instances; i++) {
            Path out = work.resolve("instance-" + rate + "-" + i + ".txt");
            outputs.add(out);
            processes.add(new ProcessBuilder(
                            "java",
                            "-Xms1g",
                            "-Xmx1g",
                            "-cp",
                            classPath,
                            SustainedExperiment.class.getName(),
                            "instance",
                            contender.name(),
                            database.id(),
                            url,
                            server.username(),
                            String.valueOf(i),
                            String.valueOf(rate / (double) instances),
                            String.valueOf(seconds),
                            String.valueOf(startMillis),
                            out.toString())
                    .inheritIO()
                    .start());
        }
        for (Process process : processes) {
            if (!process.waitFor(
                            START_MILLIS + seconds * 1000L + LEAD_MILLIS + GRACE_MILLIS + 60_000, TimeUnit.MILLISECONDS)
                    || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException("an instance failed or did not end; rate " + rate);
            }
        }
        return summary(contender, instances, database, rate, seconds, outputs);
    }

    private static Map<String, Object> summary(
            DurableContender contender,
            int instances,
            DurableDatabase database,
            int rate,
            int seconds,
            List<Path> outputs)
            throws IOException {
        long scheduled = 0;
        long behind = 0;
        Map<String, Integer> runsByKey = new HashMap<>();
        List<Long> lateness = new ArrayList<>();
        for (Path out : outputs) {
            for (String row : Files.readAllLines(out)) {
                String[] cells = row.split(" ");
                switch (cells[0]) {
                    case "scheduled" -> scheduled += Long.parseLong(cells[1]);
                    case "behind" -> behind += Long.parseLong(cells[1]);
                    case "ran" -> {
                        runsByKey.merge(cells[1], 1, Integer::sum);
                        lateness.add(Long.parseLong(cells[2]));
                    }
                    default -> throw new IllegalStateException("unknown row " + row);
                }
            }
        }
        long duplicates = runsByKey.values().stream().filter(n -> n > 1).count();
        long missing = scheduled - runsByKey.size();
        long[] sorted = lateness.stream().mapToLong(Long::longValue).sorted().toArray();
        double p99 = percentile(sorted, 0.99);
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("experiment", "sustained-" + instances);
        line.put("contender", contender.name());
        line.put("database", database.id());
        line.put("instances", instances);
        line.put("rate", rate);
        line.put("seconds", seconds);
        line.put("scheduled", scheduled);
        line.put("schedulingBehindMillis", behind);
        line.put("ran", lateness.size());
        line.put("duplicates", duplicates);
        line.put("missing", missing);
        line.put("p50Millis", percentile(sorted, 0.50));
        line.put("p99Millis", p99);
        line.put("maxMillis", sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1]);
        line.put("held", missing == 0 && duplicates == 0 && p99 <= P99_LIMIT_MILLIS && behind == 0);
        line.put("loadAverage", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        return line;
    }

    private static double percentile(long[] sorted, double q) {
        return sorted.length == 0
                ? Double.NaN
                : sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    }

    /** A pool of {@value DurableExperiments#POOL_SIZE} connections to {@code url}, as every contender gets. */
    static HikariDataSource pool(String url, String username) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        pool.setUsername(username);
        pool.setMaximumPoolSize(DurableExperiments.POOL_SIZE);
        return pool;
    }

    /** {@code line} as one JSON object on one line (strings quoted, numbers and booleans as they are). */
    static String json(Map<String, Object> line) {
        return line.entrySet().stream()
                .map(e -> "\"" + e.getKey() + "\":"
                        + (e.getValue() instanceof String s ? "\"" + s + "\"" : String.valueOf(e.getValue())))
                .collect(Collectors.joining(",", "{", "}"));
    }

    /**
     * One instance, in a JVM of its own: starts the contender, schedules its share of the rate from the
     * given moment for the window, records each run (its key and how late it started, in ms), waits
     * for the last deadline and the grace, and writes what it did to its output file.
     */
    static final class Instance {

        static void run(String[] args) throws Exception {
            DurableContender contender = DurableContender.valueOf(args[0]);
            DurableDatabase database = DurableDatabase.of(args[1]);
            String url = args[2];
            String username = args[3];
            String prefix = "i" + args[4] + "-";
            double rate = Double.parseDouble(args[5]);
            int seconds = Integer.parseInt(args[6]);
            long startMillis = Long.parseLong(args[7]);
            Path out = Path.of(args[8]);
            ConcurrentLinkedQueue<String> runs = new ConcurrentLinkedQueue<>();
            try (HikariDataSource pool = pool(url, username)) {
                DurableContender.Durable durable = contender.start(
                        database,
                        pool,
                        new DataSourceTransactionManager(pool),
                        (key, deadline) ->
                                runs.add("ran " + key + " " + (System.currentTimeMillis() - deadline.toEpochMilli())),
                        false);
                long total = Math.round(rate * seconds);
                long[] behindMillis = new long[CALLERS];
                Thread[] callers = new Thread[CALLERS];
                for (int c = 0; c < CALLERS; c++) {
                    int caller = c;
                    callers[c] = new Thread(() -> {
                        for (long i = caller; i < total; i += CALLERS) {
                            long dueToCall = startMillis + Math.round(i * 1000.0 / rate);
                            long wait = dueToCall - System.currentTimeMillis();
                            if (wait > 0) {
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(wait));
                            } else if (wait < -LEAD_MILLIS / 2) {
                                behindMillis[caller] = Math.max(behindMillis[caller], -wait);
                            }
                            durable.schedule(prefix + i, Instant.now().plusMillis(LEAD_MILLIS));
                        }
                    });
                    callers[c].start();
                }
                for (Thread caller : callers) {
                    caller.join();
                }
                long lastDeadline = System.currentTimeMillis() + LEAD_MILLIS;
                while (System.currentTimeMillis() < lastDeadline + GRACE_MILLIS) {
                    Thread.sleep(100);
                }
                durable.stop();
                try (BufferedWriter writer = Files.newBufferedWriter(out)) {
                    writer.write("scheduled " + total + "\n");
                    writer.write("behind " + Arrays.stream(behindMillis).max().orElse(0) + "\n");
                    for (String run : runs) {
                        writer.write(run);
                        writer.write('\n');
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            System.exit(0); // the contenders' threads are not all daemons
        }
    }
}
