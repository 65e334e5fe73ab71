package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Field;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;

/**
 * The table's name as each database reads it: a word one of the databases reserves is refused when the
 * timer is built, naming it, instead of an error at start about SQL or a table that seems not to exist;
 * every other keyword of the database names a table there. On PostgreSQL, which folds unquoted names to
 * lower case, {@code Timeouts} and {@code timeouts} are one table, and instances that spell it either
 * way share its life locks.
 */
class DurableTimerTableNameTest extends OnEachDatabase {

    private static final String TASK = "order-payment";
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /**
     * Names a table might be given that are keywords of some database, tried on every database
     * besides the keywords it lists itself (H2 lists only those it reserves).
     */
    private static final List<String> KEYWORDS_ELSEWHERE = List.of(
            "action",
            "comment",
            "data",
            "date",
            "event",
            "level",
            "name",
            "owner",
            "position",
            "role",
            "session",
            "status",
            "text",
            "time",
            "timestamp",
            "type",
            "zone",
            "timeouts",
            "deadlines",
            "jobs");

    DurableTimerTableNameTest(TestDatabase database) {
        super(database);
    }

    @Test
    void aReservedWordIsRefusedAtBuildNamingItAndWhatIsAllowed() {
        for (String reserved : List.of("order", "user", "Order", "USER", "select", "group", "key", "value")) {
            assertThatExceptionOfType(InvalidSettingException.class)
                    .isThrownBy(() -> fixture.builder()
                            .tableName(reserved)
                            .handler(TASK, t -> {})
                            .build())
                    .satisfies(e -> assertThat(e.setting()).isEqualTo("tableName"))
                    .withMessageStartingWith("tableName is \"" + reserved + "\"")
                    .withMessageContaining("reserves")
                    .withMessageContaining(reserved.toLowerCase(Locale.ROOT) + "_timeouts");
        }
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> JdbcDurableTimer.checkTableName("order"));
    }

    /**
     * Every keyword this database reports that the rule lets through names a table in a statement:
     * it fails only because no such table exists, never as a syntax error.
     */
    @Test
    void everyOtherKeywordOfTheDatabaseNamesATable() throws Exception {
        List<String> candidates = new ArrayList<>(keywords());
        assertThat(candidates).as("the keywords this database lists").isNotEmpty();
        candidates.addAll(KEYWORDS_ELSEWHERE);
        List<String> accepted = new ArrayList<>();
        for (String word : candidates) {
            if (!IDENTIFIER.matcher(word).matches() || ReservedWords.isReserved(word)) {
                continue;
            }
            JdbcDurableTimer.checkTableName(word);
            accepted.add(word);
        }
        assertThat(accepted).as("names the rule lets through").isNotEmpty();

        List<String> notATable = new ArrayList<>();
        for (String word : accepted) {
            try {
                fixture.jdbc.queryForList("SELECT task FROM " + word + " WHERE timeout_key = 'k'");
                notATable.add(word + " (a table of that name exists)");
            } catch (DataAccessException e) {
                if (!noSuchTable(e)) {
                    notATable.add(word + ": " + e.getMostSpecificCause().getMessage());
                }
            }
        }
        assertThat(notATable)
                .as("keywords let through that cannot name a table")
                .isEmpty();
    }

    @Test
    void onPostgresqlInstancesThatSpellTheTableInAnotherCaseShareItsLifeLocks() {
        assumeThat(database).isEqualTo(TestDatabase.POSTGRESQL);
        String upper = fixture.table.toUpperCase(Locale.ROOT);
        RecordingHandler onA = fixture.writingHandler("a");
        JdbcDurableTimer a = fixture.start(fixture.builder()
                .tableName(upper)
                .instanceId("a")
                .lease(Duration.ofSeconds(30))
                .handler(TASK, onA));
        RecordingHandler onB = fixture.writingHandler("b");
        fixture.start(
                fixture.builder().instanceId("b").lease(Duration.ofSeconds(30)).handler(TASK, onB));
        Instant base = Instant.now().plusMillis(1500);
        for (int i = 0; i < 10; i++) {
            a.schedule(TASK, "kept-" + i, base.plusMillis(10L * i));
        }

        await().atMost(Duration.ofSeconds(15)).until(() -> fixture.rows() == 0);

        // b reads a's lock under the table's one name: a is alive, and keeps its timeouts and its lease.
        assertThat(fixture.writesPerInstance()).isEqualTo(Map.of("a", 10L));
        assertThat(onB.count()).isZero();
        long leaseUntil = fixture.jdbc.queryForObject(
                "SELECT lease_until FROM " + fixture.table + "_instances WHERE instance_id = 'a'", Long.class);
        assertThat(leaseUntil).isGreaterThan(System.currentTimeMillis() + 15_000);
    }

    /** The keywords this database lists: its catalog's, or for H2 its parser's. */
    private List<String> keywords() throws Exception {
        return switch (database) {
            case POSTGRESQL -> fixture.jdbc.queryForList("SELECT upper(word) FROM pg_get_keywords()", String.class);
            case MARIADB, MYSQL ->
                fixture.jdbc.queryForList("SELECT upper(word) FROM information_schema.KEYWORDS", String.class);
            case H2 -> {
                Field keywords = org.h2.util.ParserUtil.class.getDeclaredField("KEYWORDS");
                keywords.setAccessible(true);
                yield new ArrayList<>(((Map<String, ?>) keywords.get(null)).keySet());
            }
        };
    }

    /** Whether {@code e} says only that the table does not exist. */
    private boolean noSuchTable(DataAccessException e) {
        if (!(e.getMostSpecificCause() instanceof SQLException sql)) {
            return false;
        }
        return switch (database) {
            case POSTGRESQL -> "42P01".equals(sql.getSQLState());
            case MARIADB, MYSQL -> sql.getErrorCode() == 1146;
            case H2 -> sql.getErrorCode() == 42102 || sql.getErrorCode() == 42104;
        };
    }
}
