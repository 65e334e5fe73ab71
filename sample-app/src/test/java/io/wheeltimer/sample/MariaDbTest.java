package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.testsupport.mariadb.MariaDbServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The order service against a real MariaDB server (a throwaway one from {@link MariaDbServer}), reached
 * by nothing more than a {@code spring.datasource.url} of MariaDB: Flyway runs the MariaDB migrations, an
 * unpaid order is cancelled by its durable deadline and a paid one is not, and the durable timeouts' tables
 * are the library's own {@code schema-mariadb.sql}, column for column and index for index.
 */
class MariaDbTest {

    /** Long enough for the checks made before the deadline, on a busy machine. */
    private static final Duration WINDOW = Duration.ofSeconds(5);

    private static final List<String> DURABLE_TABLES =
            List.of("wheel_timer_timeouts", "wheel_timer_timeouts_instances");

    /** Per table and column: type, nullability, default, character set and collation. */
    private static final String COLUMNS = "SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME) AS name, CONCAT_WS(' | ',"
            + " COLUMN_TYPE, IS_NULLABLE, IFNULL(COLUMN_DEFAULT, '-'), IFNULL(CHARACTER_SET_NAME, '-'),"
            + " IFNULL(COLLATION_NAME, '-')) AS definition FROM information_schema.COLUMNS"
            + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?, ?)";

    /** Per table and index: its columns in order, and whether it is unique. */
    private static final String INDEXES = "SELECT CONCAT(TABLE_NAME, '.', INDEX_NAME) AS name,"
            + " CONCAT(GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX), ' unique=', MIN(NON_UNIQUE) = 0) AS definition"
            + " FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?, ?)"
            + " GROUP BY TABLE_NAME, INDEX_NAME";

    /** Per table: its engine and collation. */
    private static final String TABLES = "SELECT TABLE_NAME AS name, CONCAT(ENGINE, ' ', TABLE_COLLATION) AS definition"
            + " FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?, ?)";

    @RegisterExtension
    static final ServerPerClass<MariaDbServer> server = new ServerPerClass<>(MariaDbServer::start);

    private static MariaDbServer mariaDb() {
        return server.get();
    }

    private static ConfigurableApplicationContext app(String url) {
        return new SpringApplicationBuilder(SampleApplication.class)
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=" + url,
                        "--spring.datasource.username=" + mariaDb().username(),
                        "--orders.payment-window=" + WINDOW.toMillis() + "ms",
                        "--orders.provider-latency=10ms",
                        "--wheel-timer.tick-duration=10ms",
                        "--wheel-timer.shutdown.await-termination-period=0s");
    }

    @Test
    void anUnpaidOrderIsCancelledByItsDeadlineAndAPaidOneIsNot() throws Exception {
        String url = mariaDb().createDatabase("flow") + "?connectionTimeZone=UTC";
        try (ConfigurableApplicationContext app = app(url)) {
            Api api = Api.of(app);
            DurableTimer deadlines = app.getBean(DurableTimer.class);

            var placed = api.post("/orders", "{\"item\": \"a book, ünïcødé 📚\"}");
            assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
            String unpaid = JsonPath.read(placed.body(), "$.id");
            Instant payBy = Instant.parse(JsonPath.read(placed.body(), "$.payBy"));
            assertThat(deadlines.find("order-payment", unpaid))
                    .hasValueSatisfying(d -> assertThat(d.deadline()).isEqualTo(payBy));
            assertThat(JsonPath.<String>read(api.get("/orders/" + unpaid).body(), "$.item"))
                    .isEqualTo("a book, ünïcødé 📚");

            String paid = api.place("pen");
            var payment = api.pay(paid);
            assertThat(payment.statusCode()).as(payment.body()).isEqualTo(200);
            assertThat(JsonPath.<String>read(payment.body(), "$.status")).isEqualTo("PAID");
            assertThat(deadlines.find("order-payment", paid)).isEmpty();

            await().atMost(Api.PATIENCE).until(() -> api.status(unpaid).equals("CANCELLED"));
            assertThat(deadlines.find("order-payment", unpaid)).isEmpty();
            Thread.sleep(WINDOW.toMillis()); // well past the paid order's window too
            assertThat(api.status(paid)).isEqualTo("PAID");
            List<String> newestFirst = JsonPath.read(api.get("/orders").body(), "$.orders[*].id");
            assertThat(newestFirst).containsExactly(paid, unpaid);

            JdbcTemplate jdbc = new JdbcTemplate(mariaDb().dataSource("flow"));
            assertThat(jdbc.queryForList(
                            "SELECT version FROM flyway_schema_history WHERE success = 1 ORDER BY installed_rank",
                            String.class))
                    .as("the MariaDB migrations ran, not H2's and PostgreSQL's")
                    .containsExactly("1", "2", "3", "4", "6", "7");
            assertThat(jdbc.queryForObject(
                            "SELECT TIMESTAMPDIFF(MICROSECOND, pay_by, cancelled_at) >= 0 FROM orders WHERE id = ?",
                            Boolean.class,
                            unpaid))
                    .as("cancelled at or after its deadline")
                    .isTrue();
        }
    }

    @Test
    void theDurableTablesAreTheLibrarysOwn() throws IOException {
        String url = mariaDb().createDatabase("migrated") + "?connectionTimeZone=UTC";
        try (ConfigurableApplicationContext app = app(url)) {
            assertThat(app.isRunning()).isTrue();
        }
        mariaDb().createDatabase("library");
        JdbcTemplate library = new JdbcTemplate(mariaDb().dataSource("library"));
        for (String statement : librarySchema().split(";")) {
            if (!statement.isBlank()) {
                library.execute(statement);
            }
        }
        JdbcTemplate migrated = new JdbcTemplate(mariaDb().dataSource("migrated"));

        Map<String, String> expectedColumns = definitions(library, COLUMNS, "library");
        Map<String, String> actualColumns = definitions(migrated, COLUMNS, "migrated");
        // Every column of the library's tables, alike (a later migration may add its own columns).
        assertThat(expectedColumns).isNotEmpty();
        assertThat(actualColumns).containsAllEntriesOf(expectedColumns);
        assertThat(definitions(migrated, INDEXES, "migrated")).isEqualTo(definitions(library, INDEXES, "library"));
        assertThat(definitions(migrated, TABLES, "migrated")).isEqualTo(definitions(library, TABLES, "library"));
    }

    /**
     * What {@code sql} (columns {@code name} and {@code definition}; parameters the schema, then the two
     * durable tables) finds in {@code schema}, by name.
     */
    private static Map<String, String> definitions(JdbcTemplate jdbc, String sql, String schema) {
        return jdbc.queryForList(sql, schema, DURABLE_TABLES.get(0), DURABLE_TABLES.get(1)).stream()
                .collect(Collectors.toMap(r -> (String) r.get("name"), r -> (String) r.get("definition")));
    }

    /** The library's {@code schema-mariadb.sql}, without its comment lines. */
    private static String librarySchema() throws IOException {
        try (InputStream in = MariaDbTest.class.getResourceAsStream("/io/wheeltimer/jdbc/schema-mariadb.sql")) {
            assertThat(in).as("schema-mariadb.sql of wheel-timer-jdbc").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .filter(line -> !line.strip().startsWith("--"))
                    .collect(Collectors.joining("\n"));
        }
    }
}
