package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.testsupport.mariadb.MariaDbServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code wheel-timer.durable.initialize-schema}: {@code embedded} (the default) creates the tables on
 * an embedded database only, {@code always} on any, {@code never} on none; the shipped script for the
 * database's platform runs with the configured table name, and running it again changes nothing.
 */
class SchemaInitializationTest {

    /** Started by the first MariaDB test, closed after the class. */
    static class Handler {
        @DurableTimerTask("t")
        public void handle(String key) {}
    }

    @Test
    void embeddedCreatesTheTablesOnAnEmbeddedDatabase() {
        DurableApps.runner(Database.H2).withBean(Handler.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertTablesExist(context, "wheel_timer_timeouts");
        });
    }

    @Test
    void embeddedLeavesAServerDatabaseAloneAndTheStartNamesTheMissingTableAndTheFix() {
        DurableApps.runner(Database.POSTGRESQL)
                .withPropertyValues(Database.POSTGRESQL.newDatabase().toArray(String[]::new))
                .withBean(Handler.class)
                .withPropertyValues("wheel-timer.durable.initialize-schema=embedded")
                .run(context -> assertMissingTableStopsTheStart(context, "postgresql"));
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void neverCreatesNothingAndTheStartNamesTheMissingTableAndTheFix(Database database) {
        DurableApps.runner(database)
                .withPropertyValues(database.newDatabase().toArray(String[]::new))
                .withBean(Handler.class)
                .withPropertyValues("wheel-timer.durable.initialize-schema=never")
                .run(context -> assertMissingTableStopsTheStart(context, database.scripts()));
    }

    /** A missing table fails the start, not every schedule later: the report names it and the fix. */
    private static void assertMissingTableStopsTheStart(AssertableApplicationContext context, String scripts) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        while (failure != null && !(failure instanceof IllegalStateException)) {
            failure = failure.getCause();
        }
        assertThat(failure)
                .as("the durable timer's report in %s", context.getStartupFailure())
                .hasMessageContaining("table wheel_timer_timeouts does not exist")
                .hasMessageContaining("io/wheeltimer/jdbc/schema-" + scripts + ".sql")
                .hasMessageContaining("wheel-timer.durable.initialize-schema=always");
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void alwaysCreatesTheTablesUnderTheConfiguredNameAndRunsAgainHarmlessly(Database database) {
        String[] sameDatabase = database.newDatabase().toArray(String[]::new);
        for (int run = 1; run <= 2; run++) {
            DurableApps.runner(database)
                    .withPropertyValues(sameDatabase)
                    .withBean(Handler.class)
                    .withPropertyValues(
                            "wheel-timer.durable.initialize-schema=always",
                            "wheel-timer.durable.table-name=order_deadlines")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertTablesExist(context, "order_deadlines");
                        assertNoTable(context, "wheel_timer_timeouts");
                        JdbcDurableTimer timer = DurableApps.holdingTimer(context);
                        timer.schedule("t", "k", Duration.ofHours(1));
                        assertThat(context.getBean(JdbcTemplate.class)
                                        .queryForObject("SELECT COUNT(*) FROM order_deadlines", Integer.class))
                                .isEqualTo(1);
                    });
        }
    }

    /**
     * On MariaDB, Boot's platform is the product the driver names: MariaDB Connector/J takes
     * {@code schema-mariadb.sql} (names in a NO PAD binary collation), MySQL Connector/J, which calls
     * MariaDB "MySQL", {@code schema-mysql.sql} (names as VARBINARY), as the library takes the MySQL
     * dialect; either way the tables get the configured name and the timer runs on them.
     */
    @ParameterizedTest
    @CsvSource({"jdbc:mariadb, varchar", "jdbc:mysql, varbinary"})
    void alwaysCreatesTheTablesOnMariaDbWithTheScriptOfTheProductTheDriverNames(String scheme, String keyType) {
        MariaDbServer server = mariaDb();
        String database = "boot_" + scheme.substring("jdbc:".length());
        server.createDatabase(database);
        new ApplicationContextRunner()
                .withConfiguration(DurableApps.JDBC_APPLICATION)
                .withPropertyValues(DurableApps.FAST)
                .withPropertyValues(
                        "spring.datasource.url=" + scheme + "://" + server.host() + ":" + server.port() + "/"
                                + database,
                        "spring.datasource.username=" + server.username(),
                        "wheel-timer.durable.initialize-schema=always",
                        "wheel-timer.durable.table-name=order_deadlines")
                .withBean(Handler.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertTablesExist(context, "order_deadlines");
                    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                    assertThat(jdbc.queryForObject(
                                    "SELECT DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()"
                                            + " AND TABLE_NAME = 'order_deadlines' AND COLUMN_NAME = 'timeout_key'",
                                    String.class))
                            .isEqualTo(keyType);
                    JdbcDurableTimer timer = DurableApps.holdingTimer(context);
                    timer.schedule("t", "k", Duration.ofHours(1));
                    timer.schedule("t", "K", Duration.ofHours(1));
                    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM order_deadlines", Integer.class))
                            .isEqualTo(2);
                });
    }

    private static MariaDbServer mariaDb() {
        return Database.mariaDb();
    }

    @Test
    void theTableNameReplacesEveryNameMadeFromIt() {
        String script = "CREATE TABLE IF NOT EXISTS wheel_timer_timeouts (x INT);\n"
                + "CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_due_idx ON wheel_timer_timeouts (x);\n"
                + "CREATE TABLE IF NOT EXISTS wheel_timer_timeouts_instances (y INT);\n"
                + "-- not_wheel_timer_timeouts stays\n";
        assertThat(DurableTimerSchemaInitializer.replaceTableName(script, "deadlines"))
                .isEqualTo("CREATE TABLE IF NOT EXISTS deadlines (x INT);\n"
                        + "CREATE INDEX IF NOT EXISTS deadlines_due_idx ON deadlines (x);\n"
                        + "CREATE TABLE IF NOT EXISTS deadlines_instances (y INT);\n"
                        + "-- not_wheel_timer_timeouts stays\n");
    }

    private static void assertTablesExist(AssertableApplicationContext context, String table) {
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + table + " WHERE failed_at IS NOT NULL", Integer.class))
                .isZero();
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM " + table + "_instances WHERE lease_until < 0", Integer.class))
                .isZero();
    }

    private static void assertNoTable(AssertableApplicationContext context, String table) {
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        assertThatThrownBy(() -> jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class))
                .isInstanceOf(BadSqlGrammarException.class);
    }
}
