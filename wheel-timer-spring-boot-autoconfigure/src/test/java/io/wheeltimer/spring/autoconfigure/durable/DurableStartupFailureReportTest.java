package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Import;

/**
 * A bad {@code wheel-timer.durable.*} value stops the application at startup, and the failure
 * analysis Boot prints names the key, the value given and what is allowed: one case per row.
 */
@ExtendWith(OutputCaptureExtension.class)
class DurableStartupFailureReportTest {

    static class Handler {
        @DurableTimerTask("order-payment")
        void cancelIfUnpaid(String orderId) {}
    }

    @SpringBootConfiguration
    @ImportAutoConfiguration({
        PropertyPlaceholderAutoConfiguration.class,
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        TaskExecutionAutoConfiguration.class,
        WheelTimerAutoConfiguration.class,
        DurableTimerAutoConfiguration.class
    })
    @Import(Handler.class)
    static class App {}

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "wheel-timer.durable.poll-interval     | 0ms           | at least 1ms",
                "wheel-timer.durable.poll-interval     | -1s           | at least 1ms",
                "wheel-timer.durable.poll-interval     | often         | a duration such as 100ms, 1s or PT0.1S",
                "wheel-timer.durable.lookahead         | 500ms         | at least wheel-timer.durable.poll-interval (1s)",
                "wheel-timer.durable.lease             | 2s            | more than twice wheel-timer.durable.poll-interval (1s)",
                "wheel-timer.durable.lease             | 1s            | more than twice wheel-timer.durable.poll-interval",
                "wheel-timer.durable.batch-size        | 0             | at least 1",
                "wheel-timer.durable.batch-size        | many          | a whole number",
                "wheel-timer.durable.max-attempts      | 0             | at least 1",
                "wheel-timer.durable.max-attempts      | -3            | at least 1",
                "wheel-timer.durable.retry-delay       | 0s            | at least 1ms",
                "wheel-timer.durable.retry-max-delay   | 0s            | at least 1ms",
                "wheel-timer.durable.max-data-size     | 0B            | at least 1B",
                "wheel-timer.durable.max-data-size     | 20MB          | at most 16777215B",
                "wheel-timer.durable.table-name        | timeouts;drop | a plain SQL identifier of at most 50 characters",
                "wheel-timer.durable.table-name        | 9lives        | a plain SQL identifier of at most 50 characters",
                "wheel-timer.durable.table-name        | app.timeouts  | a plain SQL identifier of at most 50 characters",
                "wheel-timer.durable.table-name        | order         | not be a word that H2, PostgreSQL, MariaDB or MySQL reserves",
                "wheel-timer.durable.table-name        | user          | for example user_timeouts",
                "wheel-timer.durable.initialize-schema | sometimes     | one of always, embedded, never",
                "wheel-timer.durable.timer             | noSuchTimer   | the Timer beans are [wheelTimer]",
            })
    void badValueStopsStartupWithAReportNamingKeyValueAndWhatIsAllowed(
            String key, String value, String allowed, CapturedOutput output) {
        assertReport(List.of("--" + key + "=" + value), key, value, allowed, output);
    }

    @ParameterizedTest(name = "{0} of {2} characters")
    @CsvSource(
            delimiter = '|',
            value = {
                "wheel-timer.durable.table-name  | t | 51  | at most 50 characters",
                "wheel-timer.durable.table-name  | t | 0   | at most 50 characters",
                "wheel-timer.durable.instance-id | i | 201 | a name of 1 to 200 characters",
            })
    void aValueOfTheWrongLengthIsReported(
            String key, String character, int length, String allowed, CapturedOutput output) {
        String value = character.repeat(length);
        assertReport(List.of("--" + key + "=" + value), key, value, allowed, output);
    }

    @ParameterizedTest(name = "wheel-timer.enabled=false")
    @CsvSource({"false"})
    void withoutAWheelTimerTheReportAsksForOne(String enabled, CapturedOutput output) {
        assertReport(
                List.of("--wheel-timer.enabled=" + enabled),
                "wheel-timer.durable.timer",
                "",
                "there is no auto-configured wheelTimer",
                output);
    }

    @ParameterizedTest(name = "table-name={0}, initialize-schema={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "wheel_timer_timeouts | never | table wheel_timer_timeouts does not exist"
                        + " | wheel-timer.durable.initialize-schema=always",
                "orders               | never | table orders lacks the columns [task, timeout_key, deadline, due_at,"
                        + " holder, version, attempts, last_error, failed_at, data, trace_context]: it is another"
                        + " table of that name"
                        + " | Name another table (with Spring Boot: wheel-timer.durable.table-name)",
            })
    void aTableThatCannotBeUsedStopsStartupWithTheTableWhatIsWrongAndTheFix(
            String table, String mode, String description, String action, CapturedOutput output) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        String url = "jdbc:h2:mem:shape-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1;INIT=CREATE TABLE IF NOT EXISTS orders (id INT)";
        assertThatThrownBy(() -> application.run(
                        "--spring.datasource.url=" + url,
                        "--" + DurableApps.WITH_DATA_SOURCE,
                        "--wheel-timer.durable.table-name=" + table,
                        "--wheel-timer.durable.initialize-schema=" + mode))
                .isInstanceOf(RuntimeException.class);

        String report = output.getOut() + output.getErr();
        String analysis = report.substring(report.indexOf("APPLICATION FAILED TO START"));
        assertThat(analysis.substring(analysis.indexOf("Description:"), analysis.indexOf("Action:")))
                .contains(description);
        assertThat(analysis.substring(analysis.indexOf("Action:"))).contains(action);
    }

    private static void assertReport(
            List<String> arguments, String key, String value, String allowed, CapturedOutput output) {
        List<String> args = new ArrayList<>(arguments);
        args.addAll(Database.H2.newDatabase().stream().map(p -> "--" + p).toList());
        args.add("--" + DurableApps.WITH_DATA_SOURCE);
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> application.run(args.toArray(String[]::new))).isInstanceOf(RuntimeException.class);

        String report = output.getOut() + output.getErr();
        assertThat(report).contains("APPLICATION FAILED TO START");
        String analysis = report.substring(report.indexOf("APPLICATION FAILED TO START"));
        assertThat(analysis).contains("'" + key + "'").contains(value).contains(allowed);
    }
}
