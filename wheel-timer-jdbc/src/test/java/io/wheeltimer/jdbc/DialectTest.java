package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(Dialect.of(product, jdbc, jdbc, "t"))
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
                                new TimeoutTable.Write("task", "one-key", 1_000L, null, 1L, null, null))));
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

    /** The dialect of {@code database}, on the fixture's table. */
    private static Dialect dialectOf(TestDatabase database, DurableFixture fixture) {
        return Dialect.of(PRODUCT_NAMES.get(database), fixture.jdbc, fixture.jdbc, fixture.table)
                .orElseThrow();
    }

    @Test
    void anotherProductHasNoDialect() {
        JdbcTemplate jdbc = new JdbcTemplate();
        assertThat(Dialect.of("Oracle", jdbc, jdbc, "t")).isEmpty();
        assertThat(Dialect.of("mariadb", jdbc, jdbc, "t"))
                .as("the name as the driver spells it")
                .isEmpty();
        assertThat(Dialect.SUPPORTED).isEqualTo("H2, PostgreSQL, MariaDB and MySQL");
    }
}
