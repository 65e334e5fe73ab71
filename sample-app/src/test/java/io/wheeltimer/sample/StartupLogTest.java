package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What the sample says when it starts on an H2 file that holds orders: the deadlines it arms again,
 * counted in words that agree with the number, and no warning from Flyway about the H2 version.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupLogTest {

    private final String url = "jdbc:h2:file:./target/test-db/startup-" + UUID.randomUUID();

    @Test
    void aRestartArmsThePendingOrderAgainAndSaysSoInTheSingular(CapturedOutput output) {
        try (ConfigurableApplicationContext first = start()) {
            first.getBean(OrderService.class).place("book");
        }
        int before = output.length();

        try (ConfigurableApplicationContext second = start()) {
            String log = output.toString().substring(before);
            assertThat(log).contains("Armed the deadline of 1 pending order again");
            assertThat(log).doesNotContain("pending orders again");
        }
    }

    @Test
    void flywayDoesNotWarnAboutTheH2Version(CapturedOutput output) {
        try (ConfigurableApplicationContext context = start()) {
            assertThat(output.toString())
                    .containsPattern("Successfully applied \\d+ migrations?")
                    .doesNotContain("newer than the version Flyway has been verified with");
        }
    }

    @Test
    void theLogCountsOrdersInWordsThatAgreeWithTheNumber() {
        assertThat(DeadlineRecovery.armedAgain(1, 0)).isEqualTo("Armed the deadline of 1 pending order again");
        assertThat(DeadlineRecovery.armedAgain(3, 0)).isEqualTo("Armed the deadlines of 3 pending orders again");
        assertThat(DeadlineRecovery.armedAgain(0, 1))
                .isEqualTo("Armed the deadlines of 0 pending orders again; the timer refused 1, left to the sweep");
        assertThat(DeadlineRecovery.swept(1)).isEqualTo("Sweep cancelled 1 overdue order that no timer here held");
        assertThat(DeadlineRecovery.swept(2)).isEqualTo("Sweep cancelled 2 overdue orders that no timer here held");
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(SampleApplication.class)
                .run(
                        "--server.port=0",
                        "--spring.main.banner-mode=off",
                        "--spring.datasource.url=" + url,
                        "--orders.recovery-interval=1h");
    }
}
