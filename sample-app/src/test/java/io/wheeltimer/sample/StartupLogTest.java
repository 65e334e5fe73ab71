package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What the sample does when it starts on a fresh H2 file: Flyway creates the orders and the durable
 * timeouts' tables, without a warning about the H2 version, and the library creates nothing itself.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupLogTest {

    private final String url = "jdbc:h2:file:./target/test-db/startup-" + UUID.randomUUID();

    @Test
    void flywayCreatesEveryTableAndDoesNotWarnAboutTheH2Version(CapturedOutput output) {
        try (ConfigurableApplicationContext context = start()) {
            assertThat(output.toString())
                    .contains("Successfully applied 7 migrations")
                    .doesNotContain("newer than the version Flyway has been verified with");
            JdbcClient jdbc = context.getBean(JdbcClient.class);
            assertThat(jdbc.sql("SELECT COUNT(*) FROM wheel_timer_timeouts")
                            .query(Long.class)
                            .single())
                    .isZero();
            assertThat(jdbc.sql("SELECT MAX(\"version\") FROM \"flyway_schema_history\"")
                            .query(String.class)
                            .single())
                    .isEqualTo("7");
        }
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(SampleApplication.class)
                .run("--server.port=0", "--spring.main.banner-mode=off", "--spring.datasource.url=" + url);
    }
}
