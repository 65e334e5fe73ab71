package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

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
}
