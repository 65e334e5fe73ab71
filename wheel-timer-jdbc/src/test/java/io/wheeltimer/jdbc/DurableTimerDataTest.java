package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/**
 * Data scheduled with a timeout: stored as text (a String as given, another object through the
 * codec), handed to every run with the scheduled deadline and the run's number, limited in UTF-8
 * bytes, and replaced whole when the key is scheduled again.
 */
class DurableTimerDataTest extends OnEachDatabase {

    private static final String TASK = "order-payment";

    /** A record the test codec writes as {@code id|cents}. */
    record Order(String id, int cents) {}

    /** A codec of {@link Order} only: the library has no JSON mapper of its own. */
    static final class OrderCodec implements DurableDataCodec {
        @Override
        public String write(Object data) {
            Order order = (Order) data;
            return order.id() + "|" + order.cents();
        }

        @Override
        public Object read(String text, Type type) {
            assertThat(type).isEqualTo(Order.class);
            String[] parts = text.split("\\|");
            return new Order(parts[0], Integer.parseInt(parts[1]));
        }
    }

    DurableTimerDataTest(TestDatabase database) {
        super(database);
    }

    @Test
    void nonAsciiTextReachesFindAndTheHandlerAsGiven() {
        RecordingHandler handler = new RecordingHandler();
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
        String text = "Grüße, 注文 №7 🎉 'quoted' \"and\" \\ back";

        DurableTimeout scheduled = durable.schedule(TASK, "order-1", Duration.ofSeconds(2), text);

        assertThat(scheduled.data()).isEqualTo(text);
        assertThat(scheduled.attempt()).isEqualTo(1);
        assertThat(durable.find(TASK, "order-1")).contains(scheduled);
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("order-1") == 1);
        DurableTimeout ran = handler.runs("order-1").get(0).timeout();
        assertThat(ran).isEqualTo(scheduled);
    }

    @Test
    void dataOfExactlyTheLimitIsStoredAndOneByteMoreIsRefusedWithNothingWritten() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, t -> {}));
        // 64 KB of 4-byte characters: the default limit, exactly.
        String atLimit = "😀".repeat((int) JdbcDurableTimer.DEFAULT_MAX_DATA_SIZE.toBytes() / 4);

        durable.schedule(TASK, "at-limit", Duration.ofHours(1), atLimit);

        assertThat(durable.find(TASK, "at-limit").orElseThrow().data()).isEqualTo(atLimit);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> durable.schedule(TASK, "over", Duration.ofHours(1), atLimit + "x"))
                .withMessageContaining(TASK)
                .withMessageContaining("over")
                .withMessageContaining("65537 bytes")
                .withMessageContaining("65536 bytes");
        assertThat(durable.find(TASK, "over")).isEmpty();
        assertThat(fixture.rows()).isEqualTo(1);
    }

    @Test
    void theLimitIsTheBuildersMaxDataSize() {
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().maxDataSize(DataSize.ofBytes(4)).handler(TASK, t -> {}));

        durable.schedule(TASK, "fits", Duration.ofHours(1), "abé"); // 4 bytes
        assertThatIllegalArgumentException()
                .isThrownBy(() -> durable.schedule(TASK, "too-big", Duration.ofHours(1), "abé!"))
                .withMessageContaining("5 bytes");
        assertThat(fixture.rows()).isEqualTo(1);
    }

    @Test
    void aRecordIsWrittenByTheCodecAndReadBackByTheHandler() {
        OrderCodec codec = new OrderCodec();
        List<Order> read = new java.util.concurrent.CopyOnWriteArrayList<>();
        JdbcDurableTimer durable = fixture.start(fixture.builder()
                .dataCodec(codec)
                .handler(TASK, timeout -> read.add((Order) codec.read(timeout.data(), Order.class))));

        DurableTimeout scheduled = durable.schedule(TASK, "order-2", Duration.ofMillis(200), new Order("o-2", 1999));

        assertThat(scheduled.data()).isEqualTo("o-2|1999");
        await().atMost(Duration.ofSeconds(10)).until(() -> read.size() == 1);
        assertThat(read).containsExactly(new Order("o-2", 1999));
    }

    @Test
    void withoutACodecAStringIsStoredAndAnotherTypeIsRefusedNamingIt() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, t -> {}));

        assertThat(durable.schedule(TASK, "text", Duration.ofHours(1), "{\"id\":1}")
                        .data())
                .isEqualTo("{\"id\":1}");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> durable.schedule(TASK, "record", Duration.ofHours(1), new Order("o", 1)))
                .withMessageContaining(Order.class.getName())
                .withMessageContaining("DurableDataCodec");
        assertThat(durable.find(TASK, "record")).isEmpty();
    }

    @Test
    void reschedulingWithoutDataKeepsNoOldData() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, t -> {}));
        durable.schedule(TASK, "order-3", Duration.ofHours(1), "old data");

        durable.schedule(TASK, "order-3", Duration.ofHours(2));

        assertThat(durable.find(TASK, "order-3").orElseThrow().data()).isNull();
        assertThat(fixture.row(TASK, "order-3").get("data")).isNull();
    }

    @Test
    void everyRetryGetsTheDataTheScheduledDeadlineAndItsRunsNumber() {
        AtomicInteger runs = new AtomicInteger();
        RecordingHandler handler = new RecordingHandler(timeout -> {
            if (runs.incrementAndGet() < 3) {
                throw new IllegalStateException("not yet, run " + timeout.attempt());
            }
        });
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
        Instant deadline = Instant.now().plusMillis(200).truncatedTo(ChronoUnit.MILLIS);

        durable.schedule(TASK, "order-4", deadline, "payload");

        await().atMost(Duration.ofSeconds(15)).until(() -> handler.count("order-4") == 3);
        assertThat(handler.runs("order-4"))
                .extracting(RecordingHandler.Run::timeout)
                .containsExactly(
                        new DurableTimeout(TASK, "order-4", deadline, "payload", 1),
                        new DurableTimeout(TASK, "order-4", deadline, "payload", 2),
                        new DurableTimeout(TASK, "order-4", deadline, "payload", 3));
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 0);
    }
}
