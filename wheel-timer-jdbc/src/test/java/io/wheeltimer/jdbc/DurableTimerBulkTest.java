package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/**
 * {@code scheduleAll} and {@code cancelAll}: one transaction, the caller's when it has one; all or
 * nothing; duplicates collapse, the last one winning; what is due soon is held and fires here.
 */
class DurableTimerBulkTest extends OnEachDatabase {

    private static final String TASK = "order-payment";
    private static final String OTHER = "invoice-reminder";

    private RecordingHandler handler;
    private JdbcDurableTimer durable;

    DurableTimerBulkTest(TestDatabase database) {
        super(database);
    }

    private JdbcDurableTimer start() {
        handler = new RecordingHandler();
        durable = fixture.start(fixture.builder().handler(TASK, handler).handler(OTHER, t -> {}));
        return durable;
    }

    private static Instant inHours(int hours) {
        return Instant.now().plus(Duration.ofHours(hours)).truncatedTo(ChronoUnit.MILLIS);
    }

    @Test
    void schedulesEveryTimeoutAndThoseDueSoonFireHere() {
        start();
        Instant soon = Instant.now().plusMillis(300);

        int written = durable.scheduleAll(List.of(
                new DurableTimeout(TASK, "a", soon, "data a", 7), // the attempt is ignored
                new DurableTimeout(TASK, "b", soon),
                new DurableTimeout(OTHER, "a", inHours(1))));

        assertThat(written).isEqualTo(3);
        assertThat(durable.held()).isEqualTo(2); // the one an hour ahead is left unheld
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count() == 2);
        assertThat(handler.runs("a").get(0).timeout().data()).isEqualTo("data a");
        assertThat(handler.runs("a").get(0).timeout().attempt()).isEqualTo(1);
        assertThat(durable.find(OTHER, "a")).isPresent();
    }

    @Test
    void duplicatesCollapseAndTheLastOneWins() {
        start();
        Instant first = inHours(1);
        Instant last = inHours(2);

        int written = durable.scheduleAll(List.of(
                new DurableTimeout(TASK, "a", first, "first", 1),
                new DurableTimeout(TASK, "b", first),
                new DurableTimeout(TASK, "a", last, "last", 1)));

        assertThat(written).isEqualTo(2);
        assertThat(fixture.rows()).isEqualTo(2);
        assertThat(durable.find(TASK, "a")).contains(new DurableTimeout(TASK, "a", last, "last", 1));
    }

    @Test
    void oneInvalidElementWritesNothing() {
        start();
        durable.schedule(TASK, "existing", inHours(1));

        assertThatIllegalArgumentException()
                .isThrownBy(() -> durable.scheduleAll(List.of(
                        new DurableTimeout(TASK, "fine", inHours(1)), new DurableTimeout(TASK, " ", inHours(1)))))
                .withMessageContaining("timeouts[1]")
                .withMessageContaining("key");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> durable.scheduleAll(List.of(
                        new DurableTimeout(TASK, "fine", inHours(1)),
                        new DurableTimeout("unknown-task", "x", inHours(1)))))
                .withMessageContaining("unknown-task");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> durable.scheduleAll(List.of(
                        new DurableTimeout(TASK, "fine", inHours(1)),
                        new DurableTimeout(TASK, "big", inHours(1), "x".repeat(65537), 1))))
                .withMessageContaining("65537 bytes");
        assertThatNullPointerException()
                .isThrownBy(
                        () -> durable.scheduleAll(Arrays.asList(new DurableTimeout(TASK, "fine", inHours(1)), null)))
                .withMessageContaining("timeouts[1]");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> durable.cancelAll(TASK, List.of("existing", "")))
                .withMessageContaining("keys[1]");

        assertThat(fixture.rows()).isEqualTo(1);
        assertThat(durable.find(TASK, "fine")).isEmpty();
        assertThat(durable.find(TASK, "existing")).isPresent();
    }

    @Test
    void joinsTheCallersTransactionAndARollbackLeavesNothing() {
        start();
        durable.schedule(TASK, "kept", Instant.now().plusSeconds(3));
        int heldBefore = durable.held();

        fixture.transactions.executeWithoutResult(status -> {
            durable.scheduleAll(List.of(
                    new DurableTimeout(TASK, "x", Instant.now().plusMillis(200)),
                    new DurableTimeout(TASK, "y", inHours(1))));
            assertThat(durable.cancelAll(TASK, List.of("kept"))).isEqualTo(1);
            status.setRollbackOnly();
        });

        assertThat(fixture.rows()).isEqualTo(1);
        assertThat(durable.find(TASK, "kept")).isPresent();
        assertThat(durable.held()).isEqualTo(heldBefore);
    }

    @Test
    void emptyCollectionsWriteNothing() {
        start();

        assertThat(durable.scheduleAll(List.of())).isZero();
        assertThat(durable.cancelAll(TASK, List.of())).isZero();
        assertThat(fixture.rows()).isZero();
    }

    @Test
    void cancelAllRemovesOnlyPendingOnesAndDisarmsThem() {
        start();
        durable.scheduleAll(List.of(
                new DurableTimeout(TASK, "a", Instant.now().plusSeconds(2)),
                new DurableTimeout(TASK, "b", inHours(1)),
                new DurableTimeout(OTHER, "a", inHours(1))));
        assertThat(durable.held()).isEqualTo(1);

        int removed = durable.cancelAll(TASK, List.of("a", "b", "a", "never-scheduled"));

        assertThat(removed).isEqualTo(2);
        assertThat(durable.held()).isZero();
        assertThat(fixture.rows()).isEqualTo(1);
        assertThat(durable.find(OTHER, "a")).isPresent();
    }

    @Test
    void tenThousandAtOnce() {
        start();
        Instant deadline = inHours(1);
        List<DurableTimeout> many = IntStream.range(0, 10_000)
                .mapToObj(i -> new DurableTimeout(TASK, "key-" + i, deadline.plusMillis(i), "order " + i, 1))
                .toList();

        long started = System.nanoTime();
        assertThat(durable.scheduleAll(many)).isEqualTo(10_000);
        long scheduled = System.nanoTime();
        List<String> keys =
                new ArrayList<>(many.stream().map(DurableTimeout::key).toList());
        assertThat(durable.cancelAll(TASK, keys.subList(0, 5_000))).isEqualTo(5_000);
        long cancelled = System.nanoTime();

        System.out.printf(
                "%s: scheduleAll of 10000 in %d ms, cancelAll of 5000 in %d ms%n",
                database, (scheduled - started) / 1_000_000, (cancelled - scheduled) / 1_000_000);
        assertThat(fixture.rows()).isEqualTo(5_000);
        assertThat(durable.find(TASK, "key-9999").orElseThrow().data()).isEqualTo("order 9999");
    }

    @Test
    void rowsOfLargeDataAreWrittenWhateverTheirSumAndTheirCharacters() {
        handler = new RecordingHandler();
        durable = fixture.start(
                fixture.builder().maxDataSize(DataSize.ofMegabytes(1)).handler(TASK, handler));
        // Text a driver escapes (each ' and \ doubles where it is sent as a literal) and text of
        // four-byte characters, 64 KB of UTF-8 each, and a few rows of 1 MB: tens of megabytes.
        String escaped = "'\\".repeat(64 * 1024 / 2);
        String wide = "\ud83d\ude00".repeat(64 * 1024 / 4);
        String large = "x".repeat(1024 * 1024);
        Instant deadline = inHours(1);
        List<DurableTimeout> timeouts = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            timeouts.add(new DurableTimeout(TASK, "key-" + i, deadline, i % 2 == 0 ? escaped : wide, 1));
        }
        for (int i = 0; i < 20; i++) {
            timeouts.add(new DurableTimeout(TASK, "large-" + i, deadline, large, 1));
        }
        if (database == TestDatabase.MARIADB || database == TestDatabase.MYSQL) {
            long maxAllowedPacket = fixture.jdbc.queryForObject("SELECT @@max_allowed_packet", Long.class);
            assertThat(300L * 64 * 1024)
                    .as("the 64 KB rows alone are more than the server takes in one statement")
                    .isGreaterThan(maxAllowedPacket);
        }

        assertThat(durable.scheduleAll(timeouts)).isEqualTo(320);

        assertThat(fixture.rows()).isEqualTo(320);
        for (int i : new int[] {0, 1, 298, 299}) {
            assertThat(durable.find(TASK, "key-" + i).orElseThrow().data()).isEqualTo(i % 2 == 0 ? escaped : wide);
        }
        assertThat(durable.find(TASK, "large-0").orElseThrow().data()).isEqualTo(large);
        assertThat(durable.find(TASK, "large-19").orElseThrow().data()).isEqualTo(large);
    }

    @Test
    void aHundredThousandAtOnceOnPostgresql() {
        assumeThat(database)
                .as("one statement of arrays on PostgreSQL; the others write in chunks, as rowsOfLargeData shows")
                .isEqualTo(TestDatabase.POSTGRESQL);
        start();
        Instant deadline = inHours(1);
        List<DurableTimeout> many = IntStream.range(0, 100_000)
                .mapToObj(i -> new DurableTimeout(TASK, "key-" + i, deadline.plusMillis(i % 1000), "order " + i, 1))
                .toList();

        assertThat(durable.scheduleAll(many)).isEqualTo(100_000);

        assertThat(fixture.rows()).isEqualTo(100_000);
        assertThat(durable.find(TASK, "key-99999").orElseThrow().data()).isEqualTo("order 99999");
        assertThat(durable.held()).isZero();
    }
}
