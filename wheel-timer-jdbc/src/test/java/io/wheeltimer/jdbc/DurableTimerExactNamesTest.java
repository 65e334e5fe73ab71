package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Task names and keys compare exactly, as the bytes of their UTF-8 text: names that differ only in
 * case, in trailing or leading spaces, in an accent composed or not, or in a character beyond the
 * Basic Multilingual Plane are different timeouts, and each comes back from the table as it was
 * scheduled. On MariaDB and MySQL the usual collations would make several of them one (a
 * case-insensitive one makes {@code Order-1} and {@code order-1} one key; {@code utf8mb4_bin}, which
 * pads, {@code a} and {@code a }).
 */
@ParameterizedClass
@MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
class DurableTimerExactNamesTest {

    /** Tasks that differ in case and a trailing space. */
    private static final List<String> TASKS = List.of("payment", "Payment", "payment ");

    /** Keys that a case-insensitive, accent-insensitive or padding collation would take for one another. */
    private static final List<String> KEYS = List.of(
            "Order-1",
            "order-1",
            "ORDER-1",
            "a",
            "a ",
            "a  ",
            " a",
            "\u00e9", // é, composed
            "e\u0301", // e and a combining acute accent
            "e",
            "E",
            "\u00df", // ß
            "ss",
            "s",
            "\ud83d\udd14", // 🔔 U+1F514
            "\ud83d\udd15", // 🔕 U+1F515
            "\ud83d\udd14 ");

    private final TestDatabase database;
    private DurableFixture fixture;

    DurableTimerExactNamesTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void createFixture() {
        fixture = new DurableFixture(database);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void namesThatDifferInAnyCharacterAreDifferentTimeouts() {
        RecordingHandler handler = new RecordingHandler(t -> {});
        JdbcDurableTimer durable = fixture.start(handling(fixture.builder(), handler));
        Instant base = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
        List<DurableTimeout> scheduled = new ArrayList<>();
        for (String task : TASKS) {
            for (String key : KEYS) {
                scheduled.add(durable.schedule(task, key, base.plusSeconds(scheduled.size())));
            }
        }

        assertThat(fixture.rows()).isEqualTo(scheduled.size());
        for (DurableTimeout timeout : scheduled) {
            assertThat(durable.find(timeout.task(), timeout.key()))
                    .as("%s", timeout)
                    .contains(timeout);
        }

        assertThat(durable.cancel("payment", "a")).isTrue();
        assertThat(durable.cancel("payment", "a")).isFalse();
        assertThat(durable.find("payment", "a ")).isPresent();
        assertThat(durable.find("payment ", "a")).isPresent();
        assertThat(durable.find("Payment", "a")).isPresent();
        assertThat(fixture.rows()).isEqualTo(scheduled.size() - 1);
        assertThat(handler.count()).isZero();
    }

    @Test
    void eachNameComesBackFromTheTableAsItWasScheduled() {
        // Scheduled by one instance, then released by its stop: the other instance reads every name
        // from the table when it claims the rows.
        JdbcDurableTimer first = fixture.start(handling(fixture.builder().instanceId("first"), t -> {}));
        Instant due = Instant.now().plus(Duration.ofSeconds(2));
        Set<DurableTimeout> scheduled = new HashSet<>();
        for (String task : TASKS) {
            for (String key : KEYS) {
                scheduled.add(first.schedule(task, key, due));
            }
        }
        first.stop();
        assertThat(fixture.holders().values()).containsOnlyNulls();

        RecordingHandler handler = new RecordingHandler(t -> {});
        fixture.start(handling(fixture.builder().instanceId("second"), handler));

        await().atMost(Duration.ofSeconds(20)).until(() -> handler.count() >= scheduled.size());
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 0);
        assertThat(handler.runs()).map(RecordingHandler.Run::timeout).containsExactlyInAnyOrderElementsOf(scheduled);
    }

    private static JdbcDurableTimer.Builder handling(JdbcDurableTimer.Builder builder, DurableTimeoutHandler handler) {
        for (String task : TASKS) {
            builder.handler(task, handler);
        }
        return builder;
    }
}
