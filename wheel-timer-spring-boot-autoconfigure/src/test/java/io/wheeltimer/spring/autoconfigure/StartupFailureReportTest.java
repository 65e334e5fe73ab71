package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A bad {@code wheel-timer.*} value stops the application at startup, and the failure analysis
 * that Boot prints names the key, the value given and what is allowed (fragments joined by
 * {@code &&}): one case per row. Each property is checked here once, as the user sees it.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureReportTest {

    @SpringBootConfiguration
    @ImportAutoConfiguration(WheelTimerAutoConfiguration.class)
    static class App {}

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "wheel-timer.tick-duration    | 0ms            | must be positive",
                "wheel-timer.tick-duration    | -1s            | must be positive",
                "wheel-timer.tick-duration    | fast           | a positive duration, such as 1ms, 100ms, 1s or PT0.1S",
                "wheel-timer.ticks-per-wheel  | 0              | from 1 to 1073741824",
                "wheel-timer.ticks-per-wheel  | -4             | from 1 to 1073741824",
                "wheel-timer.ticks-per-wheel  | 1073741825     | from 1 to 1073741824",
                "wheel-timer.ticks-per-wheel  | many           | a whole number from 1 to 1073741824",
                "wheel-timer.executor         | noSuchExecutor | no bean named 'noSuchExecutor' && name an Executor bean, or leave it empty",
                "wheel-timer.annotation.executor | noSuchExecutor | name an Executor bean",
                "wheel-timer.shutdown.await-termination-period | soon | a duration of 0s or more",
                "wheel-timer.shutdown.await-termination-period | -1s  | 0s or longer",
                "wheel-timer.thread-name      | ' '            | must not be blank",
            })
    void badValueStopsStartupWithAReportNamingKeyValueAndWhatIsAllowed(
            String key, String value, String allowed, CapturedOutput output) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> application.run("--" + key + "=" + value)).isInstanceOf(RuntimeException.class);

        String report = output.getOut() + output.getErr();
        assertThat(report).contains("APPLICATION FAILED TO START");
        String analysis = report.substring(report.indexOf("APPLICATION FAILED TO START"));
        assertThat(analysis).contains("'" + key + "'").contains(value).contains(allowed.split(" && "));
    }
}
