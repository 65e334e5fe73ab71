package io.wheeltimer.spring.autoconfigure.durable;

import static io.wheeltimer.spring.autoconfigure.durable.DurableApps.awaitHolding;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.jdbc.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.mockito.Mockito;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The {@code durableTimer} bean: when it is there and when it backs off, what it is built from (the
 * properties, the wheel, the transaction manager, the handler executor), and its lifecycle.
 */
@ExtendWith(OutputCaptureExtension.class)
class DurableTimerAutoConfigurationTest {

    /** Records where and what it ran. */
    static class Handlers {
        final List<String> keys = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        @DurableTimerTask("order-payment")
        public void cancelIfUnpaid(String orderId) {
            keys.add(orderId);
            threads.add(Thread.currentThread().getName());
        }

        @DurableTimerTask("reminder")
        public void remind(DurableTimeout timeout) {
            keys.add(timeout.task() + ":" + timeout.key());
            threads.add(Thread.currentThread().getName());
        }
    }

    @Test
    void aDataSourceBringsTheDurableTimerFiringOnTheWheelTimer() {
        DurableApps.runner(Database.H2).withBean(Handlers.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(DurableTimer.class);
            assertThat(context.getBean("durableTimer")).isInstanceOf(JdbcDurableTimer.class);
            JdbcDurableTimer timer = context.getBean(JdbcDurableTimer.class);
            assertThat(timer.isRunning()).as("started with the context").isTrue();
            assertThat(timer.tasks()).containsExactlyInAnyOrder("order-payment", "reminder");
            assertThat(timer.tableName()).isEqualTo("wheel_timer_timeouts");

            HashedWheelTimer wheel = context.getBean("wheelTimer", HashedWheelTimer.class);
            long scheduledOnTheWheel = wheel.stats().scheduled();
            awaitHolding(timer);
            timer.schedule("order-payment", "o-1", Duration.ofMillis(50));
            timer.schedule("reminder", "r-1", Duration.ZERO);

            Handlers handlers = context.getBean(Handlers.class);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(handlers.keys).containsExactlyInAnyOrder("o-1", "reminder:r-1"));
            assertThat(wheel.stats().scheduled()).isGreaterThanOrEqualTo(scheduledOnTheWheel + 2);
            // Boot's applicationTaskExecutor, the executor of @Async: threads "task-1", ...
            assertThat(handlers.threads).allSatisfy(thread -> assertThat(thread).startsWith("task-"));
        });
    }

    @Test
    void withNoAnnotationExecutorHandlersRunOnAnExecutorOfTheirOwnNotOnTheWorker() {
        DurableApps.runner(Database.H2)
                .withBean(Handlers.class)
                // Empty: @WheelTimeout calls would run on the wheel's worker, so the handlers get an
                // executor of their own. (A name of no bean stops startup.)
                .withPropertyValues("wheel-timer.annotation.executor=")
                .run(context -> {
                    JdbcDurableTimer timer = DurableApps.holdingTimer(context);
                    timer.schedule("order-payment", "o-2", Duration.ZERO);
                    Handlers handlers = context.getBean(Handlers.class);
                    await().atMost(Duration.ofSeconds(30))
                            .untilAsserted(() -> assertThat(handlers.keys).containsExactly("o-2"));
                    assertThat(handlers.threads)
                            .singleElement()
                            .asString()
                            .startsWith(DurableTimerHandlerExecutor.THREAD_NAME_PREFIX);
                });
    }

    @Test
    void propertiesSetTheTimer() {
        DurableApps.runner(Database.H2)
                .withBean(Handlers.class)
                .withPropertyValues(
                        "wheel-timer.durable.table-name=app_deadlines",
                        "wheel-timer.durable.instance-id=node-7",
                        "wheel-timer.durable.batch-size=5",
                        "wheel-timer.durable.max-attempts=3",
                        "wheel-timer.durable.time-source=instance")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    JdbcDurableTimer timer = context.getBean(JdbcDurableTimer.class);
                    assertThat(timer.instanceId()).isEqualTo("node-7");
                    assertThat(timer.databaseClockOffset())
                            .as("the instance's clock judges")
                            .isEmpty();
                    assertThat(timer.tableName()).isEqualTo("app_deadlines");
                    DurableTimerProperties properties = context.getBean(DurableTimerProperties.class);
                    assertThat(properties.getPollInterval()).isEqualTo(Duration.ofMillis(100));
                    assertThat(properties.getBatchSize()).isEqualTo(5);
                    assertThat(properties.getMaxAttempts()).isEqualTo(3);

                    awaitHolding(timer);
                    timer.schedule("order-payment", "o-3", Duration.ofHours(1));
                    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                    assertThat(jdbc.queryForObject(
                                    "SELECT holder FROM app_deadlines WHERE timeout_key = 'o-3'", String.class))
                            .isEqualTo("node-7");
                });
    }

    @Test
    void theDefaultsAreThoseOfTheProperties() {
        DurableTimerProperties defaults = new DurableTimerProperties();
        assertThat(defaults.isEnabled()).isTrue();
        assertThat(defaults.getTableName()).isEqualTo("wheel_timer_timeouts");
        assertThat(defaults.getInitializeSchema().name()).isEqualTo("EMBEDDED");
        assertThat(defaults.getPollInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.getLookahead()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.getLease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.getBatchSize()).isEqualTo(1000);
        assertThat(defaults.getRetryDelay()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.getMaxAttempts()).isEqualTo(10);
        assertThat(defaults.getInstanceId()).isEmpty();
        assertThat(defaults.getTimer()).isEmpty();
        assertThat(defaults.getTimeSource()).isEqualTo(TimeSource.DATABASE);
        // The builder takes them as they are.
        DataSource unused = new DriverManagerDataSource("jdbc:h2:mem:defaults");
        HashedWheelTimer wheel = new HashedWheelTimer();
        try {
            assertThat(DurableTimerSettings.build(DurableTimerSettings.apply(
                            defaults,
                            JdbcDurableTimer.builder(unused, new DataSourceTransactionManager(unused), wheel))))
                    .isNotNull();
        } finally {
            wheel.stop();
        }
    }

    @Test
    void theTimerPropertyNamesAnotherWheel() {
        DurableApps.runner(Database.H2)
                .withBean(Handlers.class)
                .withUserConfiguration(SecondWheel.class)
                .withPropertyValues("wheel-timer.durable.timer=durableWheel")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    HashedWheelTimer durableWheel = context.getBean("durableWheel", HashedWheelTimer.class);
                    HashedWheelTimer wheelTimer = context.getBean("wheelTimer", HashedWheelTimer.class);
                    JdbcDurableTimer timer = DurableApps.holdingTimer(context);
                    long before = wheelTimer.stats().scheduled();
                    timer.schedule("order-payment", "o-4", Duration.ofHours(1));
                    assertThat(durableWheel.pendingTimeouts()).isEqualTo(1);
                    assertThat(wheelTimer.stats().scheduled()).isEqualTo(before);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class SecondWheel {
        @Bean(defaultCandidate = false)
        HashedWheelTimer durableWheel(HashedWheelTimer.Builder builder) {
            return builder.name("durable-wheel").build();
        }
    }

    @Test
    void theApplicationsTransactionManagerRunsTheTransactions() {
        DurableApps.runner(Database.H2).withBean(Handlers.class).run(context -> {
            assertThat(context).hasSingleBean(PlatformTransactionManager.class);
            assertThat(context.getBean(PlatformTransactionManager.class)).isInstanceOf(JdbcTransactionManager.class);
            assertThat(context).hasNotFailed();
        });
    }

    @Test
    void backsOffWithoutADataSource() {
        DurableApps.runner(Database.H2)
                .withClassLoader(new FilteredClassLoader("com.zaxxer.hikari", "org.h2", "org.postgresql"))
                .withPropertyValues("spring.datasource.url=")
                .run(context -> assertThat(context).doesNotHaveBean(DurableTimer.class));
    }

    @Test
    void backsOffWhenDisabled() {
        DurableApps.runner(Database.H2)
                .withPropertyValues("wheel-timer.durable.enabled=false")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(DurableTimer.class)
                        .doesNotHaveBean(DurableTimerLifecycle.class));
    }

    @Test
    void backsOffForTheApplicationsOwnDurableTimer() {
        DurableTimer own = Mockito.mock(DurableTimer.class);
        DurableApps.runner(Database.H2)
                .withBean("myDurableTimer", DurableTimer.class, () -> own)
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(DurableTimer.class)
                        .doesNotHaveBean(JdbcDurableTimer.class));
    }

    @Test
    void closingTheContextReleasesWhatItHoldsBeforeTheWheelStops(CapturedOutput output) {
        Database database = Database.H2;
        List<String> url = database.newDatabase();
        String[] props = url.toArray(String[]::new);
        AtomicReference<Map<String, Object>> row = new AtomicReference<>();
        DurableApps.runner(Database.H2)
                .withPropertyValues(props)
                .withPropertyValues("wheel-timer.durable.instance-id=leaving")
                .withBean(Handlers.class)
                .run(context -> {
                    JdbcDurableTimer timer = DurableApps.holdingTimer(context);
                    timer.schedule("order-payment", "o-5", Duration.ofHours(1));
                    assertThat(timer.held()).isEqualTo(1);
                });
        // A second application on the same database sees the row released, not held by "leaving".
        DurableApps.runner(Database.H2)
                .withPropertyValues(props)
                .withPropertyValues("wheel-timer.durable.enabled=false")
                .run(context -> row.set(context.getBean(JdbcTemplate.class)
                        .queryForMap("SELECT holder FROM wheel_timer_timeouts WHERE timeout_key = 'o-5'")));
        assertThat(row.get().get("holder")).as("released on close").isNull();
        assertThat(output.getAll())
                .as("the durable timer disarmed its timeout before the wheel stopped")
                .doesNotContain("pending timeouts never ran");
    }
}
