package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

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

    /** A runner of such an application on a new database of {@code database}. */
    static ApplicationContextRunner runner(Database database) {
        return new ApplicationContextRunner()
                .withConfiguration(JDBC_APPLICATION)
                .withPropertyValues(FAST)
                .withPropertyValues(database.newDatabase().toArray(String[]::new));
    }
}
