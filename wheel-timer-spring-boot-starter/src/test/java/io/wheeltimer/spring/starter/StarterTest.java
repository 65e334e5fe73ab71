package io.wheeltimer.spring.starter;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timer;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * What a user gets from the starter alone: its test classpath is the starter's dependencies
 * (the auto-configuration module, the core and {@code spring-boot-starter}) and nothing else.
 * Under {@code mvn verify} the auto-configuration module is on it as its packaged jar, so these
 * tests also check what the jar carries.
 */
class StarterTest {

    private static final String AUTOCONFIGURE_ARTIFACT = "wheel-timer-spring-boot-autoconfigure";

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class PlainApplication {}

    @Nested
    class AutoConfiguration {

        @Test
        void plainApplicationWithTheStarterGetsATimerBeanThatRunsTimeouts() throws Exception {
            SpringApplication application = new SpringApplication(PlainApplication.class);
            application.setWebApplicationType(WebApplicationType.NONE);
            try (ConfigurableApplicationContext context =
                    application.run("--spring.main.banner-mode=off", "--wheel-timer.tick-duration=10ms")) {
                Timer timer = context.getBean(Timer.class);
                assertThat(timer).isInstanceOf(HashedWheelTimer.class);
                assertThat(((HashedWheelTimer) timer).tickDuration()).isEqualTo(Duration.ofMillis(10));

                CountDownLatch ran = new CountDownLatch(1);
                timer.newTimeout(timeout -> ran.countDown(), Duration.ofMillis(20));
                assertThat(ran.await(30, TimeUnit.SECONDS))
                        .as("the timeout ran")
                        .isTrue();
            }
        }
    }

    @Nested
    class ConfigurationMetadata {

        @Test
        void metadataForEveryPropertyShipsWithTheAutoConfigurationModule() throws Exception {
            List<URL> found = Collections.list(
                    getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"));
            URL ours = found.stream()
                    .filter(url -> url.toString().contains(AUTOCONFIGURE_ARTIFACT))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no spring-configuration-metadata.json from "
                            + AUTOCONFIGURE_ARTIFACT + " among " + found));
            String metadata;
            try (InputStream in = ours.openStream()) {
                metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertThat(metadata)
                    .contains(
                            "\"wheel-timer.enabled\"",
                            "\"wheel-timer.tick-duration\"",
                            "\"wheel-timer.ticks-per-wheel\"",
                            "\"wheel-timer.max-pending-timeouts\"",
                            "\"wheel-timer.hierarchical\"",
                            "\"wheel-timer.thread-name\"",
                            "\"wheel-timer.executor\"",
                            "\"wheel-timer.shutdown.await-termination-period\"");
        }
    }
}
