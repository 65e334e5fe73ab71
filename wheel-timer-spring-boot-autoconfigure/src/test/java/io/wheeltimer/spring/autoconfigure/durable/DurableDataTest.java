package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.jdbc.DurableDataCodec;
import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.jdbc.FailedTimeout;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Data with a deadline, the Spring Boot way: written as JSON by the application's JsonMapper, read
 * into the type the {@code @DurableTimerTask} method declares (records, generic lists), given as
 * stored to a {@code String}; data that cannot be read fails the run and is given up naming the
 * task, the key and the type. On H2 and PostgreSQL.
 */
class DurableDataTest {

    record PaymentDeadline(String customer, BigDecimal amount) {}

    record Item(String sku, int quantity) {}

    /** What each handler was given, by task and key. */
    static class Handlers {
        final Map<String, Object> seen = new ConcurrentHashMap<>();
        final AtomicInteger strictRuns = new AtomicInteger();

        @DurableTimerTask("payment")
        public void payment(String orderId, PaymentDeadline deadline) {
            seen.put("payment:" + orderId, deadline == null ? "none" : deadline);
        }

        @DurableTimerTask("items")
        public void items(String orderId, List<Item> items) {
            seen.put("items:" + orderId, new ArrayList<Object>(items)); // a ClassCastException below if not Items
            seen.put("items-first:" + orderId, items.get(0).sku());
        }

        @DurableTimerTask("text")
        public void text(String key, String data) {
            seen.put("text:" + key, data == null ? "none" : data);
        }

        @DurableTimerTask("strict")
        public void strict(String key, PaymentDeadline deadline) {
            strictRuns.incrementAndGet();
        }
    }

    private static ApplicationContextRunner runner(Database database) {
        return DurableApps.runner(database)
                .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
                .withPropertyValues("wheel-timer.durable.max-attempts=2")
                .withBean(Handlers.class);
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void aRecordIsStoredAsJsonAndReachesItsHandlerAsTheRecord(Database database) {
        runner(database).run(context -> {
            assertThat(context).hasSingleBean(DurableDataCodec.class);
            JdbcDurableTimer timer = DurableApps.holdingTimer(context);
            PaymentDeadline deadline = new PaymentDeadline("alice", new BigDecimal("12.50"));

            DurableTimeout later = timer.schedule("payment", "later", Duration.ofHours(1), deadline);
            assertThat(later.data()).isEqualTo("{\"customer\":\"alice\",\"amount\":12.50}");
            assertThat(timer.find("payment", "later").orElseThrow().data()).isEqualTo(later.data());
            timer.cancel("payment", "later");

            timer.schedule("payment", "o-1", Duration.ZERO, deadline);
            timer.schedule("payment", "o-2", Duration.ZERO);
            Handlers handlers = context.getBean(Handlers.class);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(handlers.seen)
                            .containsEntry("payment:o-1", deadline)
                            .as("no data scheduled: null")
                            .containsEntry("payment:o-2", "none"));
        });
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void aListOfRecordsIsReadAsTheMethodsGenericType(Database database) {
        runner(database).run(context -> {
            JdbcDurableTimer timer = DurableApps.holdingTimer(context);
            List<Item> items = List.of(new Item("book", 2), new Item("pen", 10));
            timer.schedule("items", "o-1", Duration.ZERO, items);
            Handlers handlers = context.getBean(Handlers.class);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(handlers.seen).containsEntry("items-first:o-1", "book"));
            assertThat(handlers.seen.get("items:o-1")).isEqualTo(items);
        });
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void aStringHandlerGetsTheTextAsStored(Database database) {
        runner(database).run(context -> {
            JdbcDurableTimer timer = DurableApps.holdingTimer(context);
            timer.schedule("text", "plain", Duration.ZERO, "not JSON, \"as given\" ü");
            timer.schedule("text", "json", Duration.ZERO, new Item("book", 1));
            Handlers handlers = context.getBean(Handlers.class);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(handlers.seen)
                            .containsEntry("text:plain", "not JSON, \"as given\" ü")
                            .containsEntry("text:json", "{\"sku\":\"book\",\"quantity\":1}"));
        });
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void dataThatCannotBeReadFailsEachRunAndIsGivenUpNamingTaskKeyAndType(Database database) {
        runner(database).run(context -> {
            JdbcDurableTimer timer = DurableApps.holdingTimer(context);
            timer.schedule("strict", "o-9", Duration.ZERO, "{\"customer\": [unreadable");

            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(timer.failed("strict", 10)).hasSize(1));
            FailedTimeout failed = timer.failed("strict", 10).get(0);
            assertThat(failed.timeout().attempt()).as("retried, then given up").isEqualTo(2);
            assertThat(failed.timeout().data()).as("kept as stored").isEqualTo("{\"customer\": [unreadable");
            assertThat(failed.lastError()).contains("'strict'", "'o-9'", PaymentDeadline.class.getTypeName());
            assertThat(context.getBean(Handlers.class).strictRuns)
                    .as("never called with a null")
                    .hasValue(0);
        });
    }

    @Test
    void dataLargerThanMaxDataSizeIsRefused() {
        runner(Database.H2)
                .withPropertyValues("wheel-timer.durable.max-data-size=16B")
                .run(context -> {
                    JdbcDurableTimer timer = DurableApps.holdingTimer(context);
                    timer.schedule("text", "small", Duration.ofHours(1), "0123456789abcdef");
                    assertThatIllegalArgumentException()
                            .isThrownBy(() -> timer.schedule("text", "large", Duration.ofHours(1), "0123456789abcdefg"))
                            .withMessageContaining("17")
                            .withMessageContaining("16");
                    assertThat(timer.find("text", "large")).isEmpty();
                    timer.cancel("text", "small");
                });
    }

    @Test
    void withoutAJsonMapperOnlyStringDataIsAcceptedAndADataTypeFailsStartupNamingTheMethod() {
        DurableApps.runner(Database.H2).withBean(RecordOnly.class).run(context -> {
            assertThat(context).hasFailed();
            List<String> messages = new ArrayList<>();
            for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                messages.add(t.getMessage());
            }
            assertThat(String.join("\n", messages))
                    .contains(RecordOnly.class.getName() + ".payment(String, PaymentDeadline)")
                    .contains("no data codec");
        });
        DurableApps.runner(Database.H2).withBean(TextOnly.class).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(DurableDataCodec.class);
            JdbcDurableTimer timer = DurableApps.holdingTimer(context);
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> timer.schedule("text", "k", Duration.ofHours(1), new Item("book", 1)))
                    .withMessageContaining(Item.class.getName());
            assertThat(timer.schedule("text", "k", Duration.ofHours(1), "as given")
                            .data())
                    .isEqualTo("as given");
            timer.cancel("text", "k");
        });
    }

    /** Writes an Item as "sku*quantity" and reads it back. */
    static class StarCodec implements DurableDataCodec {
        @Override
        public String write(Object data) {
            Item item = (Item) data;
            return item.sku() + "*" + item.quantity();
        }

        @Override
        public Object read(String text, java.lang.reflect.Type type) {
            String[] parts = text.split("\\*");
            return List.of(new Item(parts[0], Integer.parseInt(parts[1])));
        }
    }

    @Test
    void aDurableDataCodecOfTheApplicationsOwnReplacesTheJsonOne() {
        runner(Database.H2).withBean(DurableDataCodec.class, StarCodec::new).run(context -> {
            assertThat(context).getBean(DurableDataCodec.class).isInstanceOf(StarCodec.class);
            JdbcDurableTimer timer = DurableApps.holdingTimer(context);
            assertThat(timer.schedule("items", "o-1", Duration.ZERO, new Item("book", 3))
                            .data())
                    .isEqualTo("book*3");
            Handlers handlers = context.getBean(Handlers.class);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(handlers.seen).containsEntry("items-first:o-1", "book"));
        });
    }

    static class RecordOnly {
        @DurableTimerTask("payment")
        public void payment(String orderId, PaymentDeadline deadline) {}
    }

    static class TextOnly {
        @DurableTimerTask("text")
        public void text(String key, String data) {}
    }
}
