package io.wheeltimer.jdbc.internal.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.jdbc.DurableFixture;
import io.wheeltimer.jdbc.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/** The dialect is the one of the product name the driver reports; MySQL Connector/J calls MariaDB "MySQL". */
class DialectTest {

    /** What each test database's driver reports. */
    private static final Map<TestDatabase, String> PRODUCT_NAMES = Map.of(
            TestDatabase.H2, "H2",
            TestDatabase.POSTGRESQL, "PostgreSQL",
            TestDatabase.MARIADB, "MariaDB",
            TestDatabase.MYSQL, "MySQL");

    @ParameterizedTest
    @MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
    void theProductNameTheDriverReportsChoosesTheDialectOfTheShippedScripts(TestDatabase database) {
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        String product =
                jdbc.execute((ConnectionCallback<String>) c -> c.getMetaData().getDatabaseProductName());

        assertThat(product).isEqualTo(PRODUCT_NAMES.get(database));
        assertThat(Dialects.of(product, jdbc, jdbc, "t"))
                .hasValueSatisfying(dialect -> assertThat(dialect.scripts()).isEqualTo(database.scripts()));
    }

    /**
     * Upserts of one key from several transactions at once, each with the same low candidate version:
     * each reads back the version it wrote (one more than the row's when it wrote), so no two read
     * the same one, and the row keeps the last.
     */
    @ParameterizedTest
    @MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
    void concurrentUpsertsOfOneKeyEachReturnTheVersionTheyWrote(TestDatabase database) throws Exception {
        int threads = 4;
        int upsertsEach = 25;
        try (DurableFixture fixture = new DurableFixture(database)) {
            Dialect dialect = dialectOf(database, fixture);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<List<Long>>> written = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int t = 0; t < threads; t++) {
                written.add(pool.submit(() -> {
                    start.await();
                    List<Long> versions = new ArrayList<>();
                    for (int i = 0; i < upsertsEach; i++) {
                        versions.add(fixture.transactions.execute(status -> dialect.upsertTimeout(
                                new TimeoutWrite("task", "one-key", 1_000L, null, 1L, null, null))));
                    }
                    return versions;
                }));
            }
            start.countDown();
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> f : written) {
                all.addAll(f.get(60, TimeUnit.SECONDS));
            }
            pool.shutdown();

            assertThat(all).hasSize(threads * upsertsEach).doesNotHaveDuplicates();
            assertThat(all)
                    .containsOnly(LongStream.rangeClosed(1, threads * upsertsEach)
                            .boxed()
                            .toArray(Long[]::new));
            assertThat(((Number) fixture.row("task", "one-key").get("version")).longValue())
                    .isEqualTo(threads * upsertsEach);
        }
    }

    /**
     * The database's time is read truncated to the millisecond, as this JVM's clock is: on one host,
     * where both read the same system clock, every reading lies between the local readings around it.
     * A reading rounded to the nearest millisecond lies after them about half the time.
     */
    @ParameterizedTest
    @MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
    void theDatabasesTimeIsTruncatedToTheMillisecondAsTheLocalClockIs(TestDatabase database) {
        try (DurableFixture fixture = new DurableFixture(database)) {
            Dialect dialect = dialectOf(database, fixture);
            for (int i = 0; i < 200; i++) {
                long before = System.currentTimeMillis();
                long databaseMillis =
                        fixture.transactions.execute(status -> dialect.renewLeaseByDatabaseTime("clock-reader", 0));
                long after = System.currentTimeMillis();
                assertThat(databaseMillis).as("reading %d", i).isBetween(before, after);
            }
        }
    }

    /**
     * In a daylight-saving zone the autumn's repeated hour stands for two instants: at 00:30 and at
     * 01:30 UTC on 25 October 2026, Berlin's local time is 02:30 both times. A server left on such a
     * zone (or a session set to it) must still give the instant, not the local time converted back.
     */
    @ParameterizedTest(allowZeroInvocations = true) // none where MariaDB is not among the databases tested
    @MethodSource("mariaDbThroughBothDrivers")
    void theDatabasesTimeIsTheInstantInTheRepeatedHourOfADaylightSavingZone(TestDatabase database) throws Exception {
        loadTimeZone(TestDatabase.sharedMariaDb(), "Europe/Berlin");
        try (DurableFixture fixture = new DurableFixture(database)) {
            Dialect dialect = dialectOf(database, fixture);
            long firstHalfPastTwo =
                    java.time.Instant.parse("2026-10-25T00:30:00Z").toEpochMilli();
            long secondHalfPastTwo =
                    java.time.Instant.parse("2026-10-25T01:30:00Z").toEpochMilli();
            List<Long> read = new ArrayList<>();
            List<Long> readThroughLocalTime = new ArrayList<>();
            fixture.jdbc.execute((ConnectionCallback<Void>) connection -> {
                JdbcTemplate session = new JdbcTemplate(
                        new org.springframework.jdbc.datasource.SingleConnectionDataSource(connection, true));
                session.execute("SET time_zone = 'Europe/Berlin'");
                try {
                    for (long instant : new long[] {firstHalfPastTwo, secondHalfPastTwo}) {
                        session.execute("SET timestamp = " + instant / 1000);
                        assertThat(session.queryForObject("SELECT DATE_FORMAT(NOW(), '%H:%i')", String.class))
                                .isEqualTo("02:30");
                        read.add(session.queryForObject("SELECT " + dialect.nowMillis(), Long.class));
                        readThroughLocalTime.add(
                                session.queryForObject("SELECT FLOOR(UNIX_TIMESTAMP(NOW(6)) * 1000)", Long.class));
                    }
                } finally {
                    session.execute("SET timestamp = DEFAULT");
                    session.execute("SET time_zone = DEFAULT");
                }
                return null;
            });

            assertThat(read).containsExactly(firstHalfPastTwo, secondHalfPastTwo);
            assertThat(readThroughLocalTime)
                    .as("the local time converted back is one instant for both: an hour off for one of them")
                    .doesNotContainSequence(firstHalfPastTwo, secondHalfPastTwo);
        }
    }

    static List<TestDatabase> mariaDbThroughBothDrivers() {
        return TestDatabase.tested().stream()
                .filter(d -> d == TestDatabase.MARIADB || d == TestDatabase.MYSQL)
                .toList();
    }

    /** Loads {@code zone} into the server's time zone tables (a server installed bare has none), once. */
    private static synchronized void loadTimeZone(io.wheeltimer.testsupport.mariadb.MariaDbServer server, String zone)
            throws Exception {
        JdbcTemplate mysql = new JdbcTemplate(server.dataSource());
        Integer loaded =
                mysql.queryForObject("SELECT COUNT(*) FROM mysql.time_zone_name WHERE Name = ?", Integer.class, zone);
        if (loaded != null && loaded > 0) {
            return;
        }
        String client = new java.io.File("/usr/bin/mariadb").canExecute() ? "mariadb" : "mysql";
        Process load = new ProcessBuilder(
                        "bash",
                        "-c",
                        "mariadb-tzinfo-to-sql /usr/share/zoneinfo/" + zone + " " + zone + " | " + client
                                + " --protocol=TCP -h " + server.host() + " -P " + server.port() + " -u "
                                + server.username() + " mysql")
                .redirectErrorStream(true)
                .start();
        String output = new String(load.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(load.waitFor())
                .as("loading the time zone %s: %s", zone, output)
                .isZero();
    }

    /** The dialect of {@code database}, on the fixture's table. */
    private static Dialect dialectOf(TestDatabase database, DurableFixture fixture) {
        return Dialects.of(PRODUCT_NAMES.get(database), fixture.jdbc, fixture.jdbc, fixture.table)
                .orElseThrow();
    }

    @Test
    void anotherProductHasNoDialect() {
        JdbcTemplate jdbc = new JdbcTemplate();
        assertThat(Dialects.of("Oracle", jdbc, jdbc, "t")).isEmpty();
        assertThat(Dialects.of("mariadb", jdbc, jdbc, "t"))
                .as("the name as the driver spells it")
                .isEmpty();
        assertThat(Dialects.SUPPORTED).isEqualTo("H2, PostgreSQL, MariaDB and MySQL");
    }
}
