package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testsupport.CountingDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The statements that schedule, fire and cancel a timeout reach its row through the primary key, on
 * a table just created, on one grown large before the database gathered any statistics on it, and
 * on one it has analyzed: a new deployment runs the plans an old one does. A plan that instead
 * scanned an index by holder reads every row the instance holds, on every run.
 *
 * <p>The statements are the very ones the timer sends (recorded, with the values bound to them),
 * each {@code EXPLAIN}ed as the database would run it; on PostgreSQL also as the generic plan it
 * switches a prepared statement to after a few runs, which knows no parameter values.
 */
class StatementPlansTest extends OnEachDatabase {

    private static final String TASK = "plans";
    private static final String INSTANCE = "plans-instance";
    /** Rows this instance holds while the table has no statistics: what an index by holder would scan. */
    private static final int HELD_ROWS = 20_000;

    private CountingDataSource recorder;

    StatementPlansTest(TestDatabase database) {
        super(database);
    }

    @BeforeEach
    void recordStatements() {
        fixture.close();
        recorder = CountingDataSource.recording(database.dataSource());
        fixture = new DurableFixture(database, recorder);
        if (database == TestDatabase.POSTGRESQL) {
            // Kept without statistics for as long as the test says, whatever autovacuum would do.
            fixture.jdbc.execute("ALTER TABLE " + fixture.table + " SET (autovacuum_enabled = false)");
        }
    }

    @AfterEach
    void stopRecording() {
        recorder = null;
    }

    @Test
    void scheduleFireAndCancelUseThePrimaryKeyWithOrWithoutStatistics() throws SQLException {
        RecordingHandler handler = new RecordingHandler();
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().instanceId(INSTANCE).handler(TASK, handler));
        int before = recorder.executed().size();
        durable.schedule(TASK, "fires", Duration.ofMillis(50));
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count() == 1);
        durable.schedule(TASK, "cancelled", Duration.ofHours(1));
        assertThat(durable.cancel(TASK, "cancelled")).isTrue();
        Instant later = Instant.now().plus(Duration.ofHours(2));
        durable.scheduleAll(
                List.of(new DurableTimeout(TASK, "bulk-1", later), new DurableTimeout(TASK, "bulk-2", later)));
        assertThat(durable.cancelAll(TASK, List.of("bulk-1", "bulk-2"))).isEqualTo(2);
        durable.stop();
        Map<String, CountingDataSource.Executed> keyed = keyedStatements(
                recorder.executed().subList(before, recorder.executed().size()));
        assertThat(keyed.keySet())
                .as("statements that reach a timeout's row by its key")
                .anySatisfy(sql -> assertThat(sql).startsWith("DELETE"))
                .hasSizeGreaterThanOrEqualTo(2);

        List<String> otherPlans = new ArrayList<>();
        otherPlans.addAll(plansNotByPrimaryKey("a table just created", keyed));
        holdManyRows();
        otherPlans.addAll(plansNotByPrimaryKey("20,000 rows held by this instance, no statistics", keyed));
        analyze();
        otherPlans.addAll(plansNotByPrimaryKey("the same rows, analyzed", keyed));
        assertThat(otherPlans)
                .as("plans that reach the table otherwise than by its primary key")
                .isEmpty();
    }

    /** Each statement on the timeouts table that names a key, once by text (inserts have no plan to choose). */
    private Map<String, CountingDataSource.Executed> keyedStatements(List<CountingDataSource.Executed> statements) {
        Pattern onTable = Pattern.compile("\\b" + Pattern.quote(fixture.table) + "\\b(?!_)", Pattern.CASE_INSENSITIVE);
        Map<String, CountingDataSource.Executed> keyed = new LinkedHashMap<>();
        for (CountingDataSource.Executed statement : statements) {
            String sql = statement.sql();
            if (onTable.matcher(sql).find()
                    && !sql.startsWith("INSERT")
                    && (sql.contains("timeout_key = ?") || sql.contains("timeout_key IN ("))) {
                keyed.putIfAbsent(sql, statement);
            }
        }
        return keyed;
    }

    private List<String> plansNotByPrimaryKey(String tableState, Map<String, CountingDataSource.Executed> keyed)
            throws SQLException {
        List<String> others = new ArrayList<>();
        try (Connection connection = database.dataSource().getConnection()) {
            for (CountingDataSource.Executed statement : keyed.values()) {
                for (Plan plan : plans(connection, statement)) {
                    if (!plan.usesPrimaryKeyOnly()) {
                        others.add(String.format(
                                "on %s, %s of%n  %s%nis%n%s", tableState, plan.kind(), statement.sql(), plan.text()));
                    }
                }
            }
        }
        return others;
    }

    /** A plan as the database printed it, and whether it reaches the timeouts table by its primary key alone. */
    private record Plan(String kind, String text, boolean usesPrimaryKeyOnly) {}

    private List<Plan> plans(Connection connection, CountingDataSource.Executed statement) throws SQLException {
        List<Plan> plans = new ArrayList<>();
        switch (database) {
            case POSTGRESQL -> {
                String custom = explainText(connection, statement, "EXPLAIN ");
                plans.add(new Plan("the plan for its values", custom, postgresUsesPrimaryKey(custom)));
                String generic = postgresGenericPlan(connection, statement.sql());
                plans.add(new Plan("the generic plan", generic, postgresUsesPrimaryKey(generic)));
            }
            case MARIADB, MYSQL -> {
                try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + statement.sql())) {
                    statement.bindTo(explain);
                    StringBuilder text = new StringBuilder();
                    boolean primary = true;
                    boolean any = false;
                    try (ResultSet rows = explain.executeQuery()) {
                        while (rows.next()) {
                            String table = rows.getString("table");
                            String key = rows.getString("key");
                            text.append("table=")
                                    .append(table)
                                    .append(" type=")
                                    .append(rows.getString("type"))
                                    .append(" key=")
                                    .append(key)
                                    .append(" extra=")
                                    .append(rows.getString("Extra"))
                                    .append('\n');
                            if (table == null
                                    && String.valueOf(rows.getString("Extra")).contains("const table")) {
                                // Looked up by its key while planning (a "const" table), and not found.
                                any = true;
                            } else if (table != null && !table.startsWith("<")) {
                                any = true;
                                primary &= "PRIMARY".equals(key);
                            }
                        }
                    }
                    plans.add(new Plan("the plan", text.toString(), any && primary));
                }
            }
            case H2 -> {
                // H2 explains a SELECT FROM OLD TABLE (DELETE ...) as a scan of the rows the delete
                // returns: what it plans for the table is the plan of the DELETE inside.
                String text = explainText(connection, insideDataChange(statement), "EXPLAIN ");
                String upper = text.toUpperCase(Locale.ROOT);
                boolean primary = upper.contains("PRIMARY_KEY")
                        && !upper.contains("_DUE_IDX")
                        && !upper.contains("_HOLDER_IDX")
                        && !upper.contains("_FAILED_IDX")
                        && !upper.contains("TABLESCAN");
                plans.add(new Plan("the plan", text, primary));
            }
        }
        return plans;
    }

    private static String explainText(Connection connection, CountingDataSource.Executed statement, String explain)
            throws SQLException {
        try (PreparedStatement explained = connection.prepareStatement(explain + statement.sql())) {
            statement.bindTo(explained);
            try (ResultSet rows = explained.executeQuery()) {
                return lines(rows);
            }
        }
    }

    private static String lines(ResultSet rows) throws SQLException {
        StringBuilder text = new StringBuilder();
        while (rows.next()) {
            text.append(rows.getString(1)).append('\n');
        }
        return text.toString();
    }

    /**
     * The plan PostgreSQL caches for a prepared statement once it finds it no worse than the plans for
     * each run's values: made without the values, on the table's statistics alone.
     */
    private static String postgresGenericPlan(Connection connection, String sql) throws SQLException {
        StringBuilder numbered = new StringBuilder();
        int parameters = 0;
        boolean quoted = false;
        for (char c : sql.toCharArray()) {
            quoted ^= c == '\'';
            if (c == '?' && !quoted) {
                numbered.append('$').append(++parameters);
            } else {
                numbered.append(c);
            }
        }
        try (java.sql.Statement session = connection.createStatement()) {
            session.execute("SET plan_cache_mode = force_generic_plan");
            session.execute("PREPARE wheel_timer_plan AS " + numbered);
            try (ResultSet rows = session.executeQuery("EXPLAIN EXECUTE wheel_timer_plan("
                    + String.join(", ", Collections.nCopies(parameters, "NULL")) + ")")) {
                return lines(rows);
            } finally {
                session.execute("DEALLOCATE wheel_timer_plan");
                session.execute("RESET plan_cache_mode");
            }
        }
    }

    /** The data-change statement of a {@code SELECT ... FROM OLD TABLE (...)}, with the same parameters. */
    private static CountingDataSource.Executed insideDataChange(CountingDataSource.Executed statement) {
        String sql = statement.sql();
        String from = "FROM OLD TABLE (";
        int start = sql.indexOf(from);
        return start < 0 ? statement : statement.withSql(sql.substring(start + from.length(), sql.lastIndexOf(')')));
    }

    private boolean postgresUsesPrimaryKey(String plan) {
        String table = fixture.table.toLowerCase(Locale.ROOT);
        return plan.contains(" using " + table + "_pkey on " + table)
                && !plan.contains("Seq Scan on " + table)
                && !plan.contains("Bitmap")
                && !plan.contains(table + "_due_idx")
                && !plan.contains(table + "_holder_idx")
                && !plan.contains(table + "_failed_idx");
    }

    /** Rows this instance holds, due in a day: the rows an index by holder finds for its every statement. */
    private void holdManyRows() {
        long dueAt = fixture.databaseMillis() + Duration.ofDays(1).toMillis();
        fixture.transactions.executeWithoutResult(status -> fixture.jdbc.batchUpdate(
                "INSERT INTO " + fixture.table + " (task, timeout_key, deadline, due_at, holder, version)"
                        + " VALUES (?, ?, ?, ?, ?, 1)",
                IntStream.range(0, HELD_ROWS)
                        .mapToObj(i -> new Object[] {TASK, "held-" + i, dueAt, dueAt, INSTANCE})
                        .toList()));
    }

    private void analyze() {
        fixture.jdbc.execute(
                switch (database) {
                    case POSTGRESQL -> "ANALYZE " + fixture.table;
                    case MARIADB, MYSQL, H2 -> "ANALYZE TABLE " + fixture.table;
                });
    }
}
