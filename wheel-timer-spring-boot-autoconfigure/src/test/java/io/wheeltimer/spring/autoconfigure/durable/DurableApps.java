package io.wheeltimer.spring.autoconfigure.durable;

import static org.awaitility.Awaitility.await;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.time.Duration;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.test.context.DynamicPropertyRegistry;

/** What the Boot tests of durable timeouts start from: an application with a DataSource, fast settings. */
final class DurableApps {

    /** A JDBC application as Boot configures it, with the wheel timer and durable timeouts. */
    static final AutoConfigurations JDBC_APPLICATION = AutoConfigurations.of(
            PropertyPlaceholderAutoConfiguration.class,
            DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class,
            TransactionAutoConfiguration.class,
            JdbcTemplateAutoConfiguration.class,
            JdbcClientAutoConfiguration.class,
            TaskExecutionAutoConfiguration.class,
            WheelTimerAutoConfiguration.class,
            DurableTimerAutoConfiguration.class);

    /**
     * A 10 ms wheel; poll every 100 ms, a 1 s lease, retry after 200 ms; a 3 h lookahead, so that what a
     * test schedules hours ahead is held by the instance that scheduled it.
     */
    static final String[] FAST = {
        "wheel-timer.tick-duration=10ms",
        "wheel-timer.durable.poll-interval=100ms",
        "wheel-timer.durable.lookahead=3h",
        "wheel-timer.durable.lease=1s",
        "wheel-timer.durable.retry-delay=200ms"
    };

    /**
     * For an application test (a {@code SpringApplication} or {@code @SpringBootTest}, which read this
     * module's test {@code application.properties}): Boot's DataSource auto-configuration, which the
     * module's other application tests leave out, and not Spring Data Redis's. A command-line or test
     * property, so that it wins over that file.
     */
    static final String WITH_DATA_SOURCE = "spring.autoconfigure.exclude=${tests.without-redis}";

    private DurableApps() {}

    /** Until the first poll wrote this instance's lease: from then on what it schedules it holds. */
    static void awaitHolding(JdbcDurableTimer timer) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> timer.lastSuccessfulPoll().isPresent());
    }

    /** The application's durable timer, once it holds what it schedules ({@link #awaitHolding}). */
    static JdbcDurableTimer holdingTimer(BeanFactory context) {
        JdbcDurableTimer timer = context.getBean(JdbcDurableTimer.class);
        awaitHolding(timer);
        return timer;
    }

    /** Points the application's DataSource at {@code server}, a PostgreSQL server of the test's own. */
    static void useServer(DynamicPropertyRegistry registry, EmbeddedPostgresServer server) {
        registry.add("spring.datasource.url", server::jdbcUrl);
        registry.add("spring.datasource.username", server::username);
    }

    /** A runner of such an application on a new database of {@code database}. */
    static ApplicationContextRunner runner(Database database) {
        return new ApplicationContextRunner()
                .withConfiguration(JDBC_APPLICATION)
                .withPropertyValues(FAST)
                .withPropertyValues(database.newDatabase().toArray(String[]::new));
    }
}
