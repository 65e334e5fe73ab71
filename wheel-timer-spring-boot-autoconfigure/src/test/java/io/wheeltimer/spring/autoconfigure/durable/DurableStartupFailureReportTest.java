package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
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
                "wheel-timer.durable.table-name        | timeouts;drop | a plain SQL identifier of at most 50 characters",
                "wheel-timer.durable.table-name        | 9lives        | a plain SQL identifier of at most 50 characters",
                "wheel-timer.durable.table-name        | app.timeouts  | a plain SQL identifier of at most 50 characters",
                "wheel-timer.durable.initialize-schema | sometimes     | one of always, embedded, never",
                "wheel-timer.durable.timer             | noSuchTimer   | the Timer beans are [wheelTimer]",
            })
    void badValueStopsStartupWithAReportNamingKeyValueAndWhatIsAllowed(
            String key, String value, String allowed, CapturedOutput output) {
        assertReport(List.of("--" + key + "=" + value), key, value, allowed, output);
    }

    @ParameterizedTest(name = "{0} characters")
    @CsvSource({"51", "0"})
    void aTableNameTooLongOrEmptyIsReported(int length, CapturedOutput output) {
        String name = "t".repeat(length);
        assertReport(
                List.of("--wheel-timer.durable.table-name=" + name),
                "wheel-timer.durable.table-name",
                name,
                "at most 50 characters",
                output);
    }

    @ParameterizedTest(name = "{0} characters")
    @CsvSource({"201"})
    void anInstanceIdTooLongIsReported(int length, CapturedOutput output) {
        String id = "i".repeat(length);
        assertReport(
                List.of("--wheel-timer.durable.instance-id=" + id),
                "wheel-timer.durable.instance-id",
                id,
                "a name of 1 to 200 characters",
                output);
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
