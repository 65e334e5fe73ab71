import io.wheeltimer.testsupport.mariadb.MariaDbServer;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two sample instances on one PostgreSQL or MariaDB, one of them killed with SIGKILL under load.
 *
 * <p>Starts a throwaway PostgreSQL server (wheel-timer-test-support: the zonky binaries, nothing
 * installed; as root it runs as {@code nobody}), or with the environment variable
 * {@code DATABASE=mariadb} a throwaway MariaDB server (the machine's {@code mariadbd}), and two sample
 * jars on one database, with a short
 * payment window. CLIENTS clients place orders for LOAD seconds, spread over both instances, and pay
 * every other one at once on the other instance. Halfway through, instance A is killed
 * ({@code Process.destroyForcibly()}: SIGKILL, as {@code kill -9}). Then it waits out the window and
 * any claim A's in-flight payments left (and, at most, A's lease), and checks from the database that
 * every order is PAID or CANCELLED, that every payment answered 200 is PAID, and that none is still
 * pending. It prints how many of A's orders the survivor cancelled, and how late: after pay_by, and
 * after the later of pay_by and the kill (the takeover: the survivor sees A's sessions end, and A's
 * life lock with them, at its next poll, without waiting for A's lease).
 *
 * <p>Run through kill-under-load.sh, which builds the class path. Arguments: the sample jar, then
 * optionally load seconds (40), clients (8), payment window seconds (10). Exit status 1 if a check fails.
 */
public class KillUnderLoad {

    private static final Pattern ID = Pattern.compile("\"id\":\"([^\"]+)\"");
    private static final Duration LEASE = Duration.ofSeconds(30); // the sample's wheel-timer.durable.lease
    private static final Duration CLAIM = Duration.ofSeconds(12); // orders.payment-timeout (2 s) + 10 s

    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: KillUnderLoad <sample jar> [load-seconds] [clients] [window-seconds]");
            System.exit(2);
        }
        Path jar = Path.of(args[0]);
        int loadSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        int clients = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int windowSeconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        System.exit(new KillUnderLoad().run(jar, loadSeconds, clients, windowSeconds) ? 0 : 1);
    }

    /** One sample instance, a process of its own. */
    private record Instance(String name, int port, Process process, String base) {}

    /** The throwaway database server: a database {@code orders} in it at {@code url}, for {@code user}. */
    private record Database(String label, String url, String user, AutoCloseable server) implements AutoCloseable {

        /** PostgreSQL, or MariaDB when {@code DATABASE=mariadb}. */
        static Database start() {
            String kind = System.getenv().getOrDefault("DATABASE", "postgresql");
            if (kind.equals("mariadb")) {
                MariaDbServer mariaDb = MariaDbServer.start();
                // The orders' times in UTC, as the sample's guide (docs/sample-app.md) advises.
                String url = mariaDb.createDatabase("orders") + "?connectionTimeZone=UTC";
                return new Database("MariaDB", url, mariaDb.username(), mariaDb);
            }
            if (!kind.equals("postgresql")) {
                throw new IllegalArgumentException("DATABASE=" + kind + ": postgresql (the default) or mariadb");
            }
            EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start();
            return new Database("PostgreSQL", postgres.createDatabase("orders"), postgres.username(), postgres);
        }

        @Override
        public void close() throws Exception {
            server.close();
        }
    }

    private boolean run(Path jar, int loadSeconds, int clients, int windowSeconds) throws Exception {
        Path logs = Files.createDirectories(jar.toAbsolutePath().getParent().resolve("kill-under-load"));
        try (Database database = Database.start()) {
            String url = database.url();
            System.out.println(database.label() + ": " + url);
            Instance a = start("a", jar, url, database.user(), windowSeconds, logs);
            Instance b = start("b", jar, url, database.user(), windowSeconds, logs);
            try {
                awaitUp(a);
                awaitUp(b);
                System.out.println("instances up: a on " + a.port + ", b on " + b.port + "; logs in " + logs);
                return load(a, b, url, database.user(), loadSeconds, clients, windowSeconds);
            } finally {
                a.process.destroyForcibly();
                b.process.destroy();
                b.process.waitFor();
                a.process.waitFor();
            }
        }
    }

    private boolean load(Instance a, Instance b, String url, String user, int loadSeconds, int clients, int window)
            throws Exception {
        Map<String, String> placedOn = new ConcurrentHashMap<>(); // order id -> instance name
        Set<String> paid200 = ConcurrentHashMap.newKeySet();
        AtomicInteger placeFailures = new AtomicInteger();
        AtomicInteger payFailures = new AtomicInteger();
        AtomicLong sequence = new AtomicLong();
        long start = System.nanoTime();
        long end = start + Duration.ofSeconds(loadSeconds).toNanos();
        long killAt = start + Duration.ofSeconds(loadSeconds).toNanos() / 2;
        boolean[] aliveA = {true};
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Thread thread = new Thread(() -> {
                while (System.nanoTime() < end) {
                    long n = sequence.getAndIncrement();
                    Instance on = aliveA[0] && n % 2 == 0 ? a : b;
                    Instance other = on == a ? b : (aliveA[0] ? a : b);
                    String id;
                    try {
                        HttpResponse<String> placed = post(on.base + "/orders", "{\"item\": \"load " + n + "\"}");
                        if (placed.statusCode() != 201) {
                            placeFailures.incrementAndGet();
                            continue;
                        }
                        Matcher m = ID.matcher(placed.body());
                        m.find();
                        id = m.group(1);
                        placedOn.put(id, on.name);
                    } catch (Exception e) {
                        placeFailures.incrementAndGet(); // A killed under the request
                        continue;
                    }
                    if ((n / 2) % 2 == 0) {
                        try {
                            if (post(other.base + "/orders/" + id + "/payment", "").statusCode() == 200) {
                                paid200.add(id);
                            }
                        } catch (Exception e) {
                            payFailures.incrementAndGet();
                        }
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        while (System.nanoTime() < killAt) {
            Thread.sleep(50);
        }
        Instant killed = Instant.now();
        a.process.destroyForcibly(); // SIGKILL
        aliveA[0] = false;
        a.process.waitFor();
        System.out.println("killed a (pid " + a.process.pid() + ") with SIGKILL at " + killed);
        for (Thread t : threads) {
            t.join();
        }
        Instant loadEnded = Instant.now();
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(
                "load: %d orders answered 201 in %.1f s (%.0f/s) by %d clients, %d on a; %d payments answered 200;"
                        + " %d order and %d payment requests failed (a killed under them)%n",
                placedOn.size(), seconds, placedOn.size() / seconds, clients,
                placedOn.values().stream().filter("a"::equals).count(), paid200.size(), placeFailures.get(),
                payFailures.get());

        // Wait out the window, A's lease and the claims of payments A was charging when it died.
        Instant bound = loadEnded.plusSeconds(window).plus(LEASE).plus(CLAIM).plusSeconds(60);
        long pending;
        try (Connection db = DriverManager.getConnection(url, user, "")) {
            while ((pending = count(db, "SELECT COUNT(*) FROM orders WHERE status = 'PENDING_PAYMENT'")) > 0
                    && Instant.now().isBefore(bound)) {
                Thread.sleep(500);
            }
            Instant settled = Instant.now();
            System.out.printf("settled %.1f s after the load ended (%d still pending)%n",
                    Duration.between(loadEnded, settled).toMillis() / 1e3, pending);
            return check(db, placedOn, paid200, killed);
        }
    }

    private boolean check(Connection db, Map<String, String> placedOn, Set<String> paid200, Instant killed)
            throws Exception {
        long total = 0;
        long paid = 0;
        long cancelled = 0;
        long pending = 0;
        long other = 0;
        long paid200Cancelled = 0;
        long unknownPlacedOn = 0;
        List<Long> survivorLateness = new ArrayList<>(); // ms, a's orders cancelled after the kill
        List<Long> takeover = new ArrayList<>(); // ms after the later of pay_by and the kill, the same orders
        List<Long> aBeforeKill = new ArrayList<>();
        List<Long> onB = new ArrayList<>();
        try (Statement s = db.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, status, pay_by, cancelled_at FROM orders")) {
            while (rs.next()) {
                total++;
                String id = rs.getString(1);
                String status = rs.getString(2);
                Instant payBy = rs.getTimestamp(3).toInstant();
                String instance = placedOn.get(id);
                if (instance == null) {
                    unknownPlacedOn++; // stored, but its 201 was lost with a
                }
                switch (status) {
                    case "PAID" -> paid++;
                    case "PENDING_PAYMENT" -> pending++;
                    case "CANCELLED" -> {
                        cancelled++;
                        if (paid200.contains(id)) {
                            paid200Cancelled++;
                        }
                        Instant at = rs.getTimestamp(4).toInstant();
                        long late = Duration.between(payBy, at).toMillis();
                        if ("b".equals(instance)) {
                            onB.add(late);
                        } else if (at.isAfter(killed)) {
                            survivorLateness.add(late); // a is dead: b cancelled it
                            Instant from = payBy.isAfter(killed) ? payBy : killed;
                            takeover.add(Duration.between(from, at).toMillis());
                        } else {
                            aBeforeKill.add(late);
                        }
                    }
                    default -> other++;
                }
            }
        }
        long left = count(db, "SELECT COUNT(*) FROM wheel_timer_timeouts");
        System.out.println();
        System.out.printf("orders in the database: %d (%d PAID, %d CANCELLED, %d PENDING_PAYMENT, %d other);"
                        + " %d stored without their 201 reaching the client%n",
                total, paid, cancelled, pending, other, unknownPlacedOn);
        System.out.printf("payments answered 200: %d, of which CANCELLED: %d%n", paid200.size(), paid200Cancelled);
        System.out.printf("durable timeouts left in the table: %d%n", left);
        System.out.println();
        System.out.println("| cancelled | orders | late p50 | p99 | max |");
        System.out.println("|---|---|---|---|---|");
        row("a's orders, by the survivor b after a's SIGKILL", survivorLateness);
        row("the same, after the later of pay_by and the kill", takeover);
        row("a's orders, by a before it died", aBeforeKill);
        row("b's orders, by b", onB);
        long notPaid = paid200.stream().filter(id -> !isPaid(db, id)).count();
        boolean ok = pending == 0 && other == 0 && paid200Cancelled == 0 && notPaid == 0 && left == 0;
        System.out.println();
        System.out.println(ok
                ? "OK: every order PAID or CANCELLED, every payment answered 200 PAID, none pending"
                : "FAILED: " + pending + " pending, " + other + " other, " + paid200Cancelled
                        + " paid with a 200 but CANCELLED, " + notPaid + " paid with a 200 but not PAID, " + left
                        + " durable timeouts left");
        return ok;
    }

    private static boolean isPaid(Connection db, String id) {
        try (var q = db.prepareStatement("SELECT status FROM orders WHERE id = ?")) {
            q.setString(1, id);
            try (ResultSet rs = q.executeQuery()) {
                return rs.next() && rs.getString(1).equals("PAID");
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void row(String what, List<Long> lateMillis) {
        long[] sorted = lateMillis.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf("| %s | %d | %s | %s | %s |%n", what, sorted.length, ms(pct(sorted, 0.50)),
                ms(pct(sorted, 0.99)), ms(sorted.length == 0 ? -1 : sorted[sorted.length - 1]));
    }

    private static String ms(long millis) {
        return millis < 0 ? "-" : millis >= 1000 ? String.format("%.1f s", millis / 1e3) : millis + " ms";
    }

    private static long pct(long[] sorted, double p) {
        return sorted.length == 0 ? -1 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static long count(Connection db, String sql) throws Exception {
        try (Statement s = db.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private Instance start(String name, Path jar, String url, String user, int windowSeconds, Path logs)
            throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(Arrays.asList(
                java,
                "-Xmx384m",
                "-jar",
                jar.toAbsolutePath().toString(),
                "--server.port=" + port,
                "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off",
                "--spring.datasource.url=" + url,
                "--spring.datasource.username=" + user,
                "--orders.payment-window=" + windowSeconds + "s",
                "--wheel-timer.durable.instance-id=instance-" + name));
        Path log = logs.resolve("instance-" + name + ".log");
        Process process = new ProcessBuilder(command)
                .directory(logs.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new Instance(name, port, process, "http://127.0.0.1:" + port);
    }

    private void awaitUp(Instance instance) throws Exception {
        Instant until = Instant.now().plusSeconds(240);
        while (Instant.now().isBefore(until)) {
            if (!instance.process.isAlive()) {
                throw new IllegalStateException("instance " + instance.name + " exited; see its log");
            }
            try {
                HttpResponse<String> health = http.send(
                        HttpRequest.newBuilder(URI.create(instance.base + "/actuator/health"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("instance " + instance.name + " did not come up within 240 s");
    }

    private HttpResponse<String> post(String uri, String json) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(uri))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
