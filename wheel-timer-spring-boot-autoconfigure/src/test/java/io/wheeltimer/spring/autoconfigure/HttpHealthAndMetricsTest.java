package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.Timeout;
import io.wheeltimer.spring.autoconfigure.ActuatorHttp.NamedTask;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The {@code wheelTimer} health component and the {@code wheel.timer.*} meters as a scrape of
 * {@code /actuator/prometheus} shows them, over real HTTP. One context per nested class.
 */
class HttpHealthAndMetricsTest {

    static final String EXPOSE = "management.endpoints.web.exposure.include=wheeltimer,health,prometheus";

    /** Health and meters with the component on; the last test stops the timer and closes the context. */
    @Nested
    @SpringBootTest(
            classes = TwoTimersOverHttp.App.class,
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                EXPOSE,
                "management.endpoint.health.show-details=always",
                "wheel-timer.max-pending-timeouts=10"
            })
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    class WithHealth extends TwoTimersOverHttp {

        @Test
        @Order(1)
        void healthShowsEveryTimerUpWithItsDetails() {
            Timeout timeout = wheelTimer.newTimeout(new NamedTask("pending"), Duration.ofMinutes(1));
            try {
                HttpResponse<String> response = http.get("/actuator/health");

                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                DocumentContext json = JsonPath.parse(response.body());
                assertThat(json.read("$.status", String.class)).isEqualTo("UP");
                assertThat(json.read("$.components.wheelTimer.status", String.class))
                        .isEqualTo("UP");
                // Two timers: a composite with one component per bean name (Boot's db convention).
                Map<String, Object> components = json.read("$.components.wheelTimer.components");
                assertThat(components).containsOnlyKeys("wheelTimer", "auditTimer");
                Map<String, Object> detail =
                        json.read("$.components.wheelTimer.components.wheelTimer.details.wheelTimer");
                assertThat(detail.keySet()).containsExactly("state", "pending", "tickLag");
                assertThat(detail.get("state")).isEqualTo("STARTED");
                assertThat(json.read(
                                "$.components.wheelTimer.components.wheelTimer.details.wheelTimer.pending", Long.class))
                        .isEqualTo(wheelTimer.pendingTimeouts())
                        .isPositive();
                assertThat(detail.get("tickLag")).isEqualTo("PT0S");
                Map<String, Object> audit =
                        json.read("$.components.wheelTimer.components.auditTimer.details.auditTimer");
                assertThat(audit.keySet()).containsExactly("state", "pending", "tickLag");
                assertThat((String) audit.get("state")).isIn("INIT", "STARTED");
            } finally {
                timeout.cancel();
            }
        }

        @Test
        @Order(1)
        void eachTimerAnswersAtItsOwnHealthPath() {
            for (String name : List.of("wheelTimer", "auditTimer")) {
                HttpResponse<String> response = http.get("/actuator/health/wheelTimer/" + name);

                assertThat(response.statusCode())
                        .as(name + ": " + response.body())
                        .isEqualTo(200);
                DocumentContext json = JsonPath.parse(response.body());
                assertThat(json.read("$.status", String.class)).isEqualTo("UP");
                Map<String, Object> details = json.read("$.details." + name);
                assertThat(details.keySet()).containsExactly("state", "pending", "tickLag");
            }
            assertThat(http.get("/actuator/health/wheelTimer/nope").statusCode())
                    .isEqualTo(404);
        }

        @Test
        @Order(2)
        void theMetersFollowTheTimerInTheScrape() throws Exception {
            Scrape first = scrape();
            Files.writeString(Path.of("target", "wheel-timer-scrape.txt"), first.text);
            String name = "{name=\"wheelTimer\"}";
            assertThat(first.types)
                    .containsEntry("wheel_timer_pending_timeouts", "gauge")
                    .containsEntry("wheel_timer_scheduled_timeouts_total", "counter")
                    .containsEntry("wheel_timer_expired_timeouts_total", "counter")
                    .containsEntry("wheel_timer_cancelled_timeouts_total", "counter")
                    .containsEntry("wheel_timer_rejected_timeouts_total", "counter")
                    .containsEntry("wheel_timer_failed_tasks_total", "counter")
                    .containsEntry("wheel_timer_tick_lag_seconds", "gauge")
                    .containsEntry("wheel_timer_lateness_seconds", "summary");
            assertThat(first.value("wheel_timer_pending_timeouts" + name)).isZero();
            assertThat(first.value("wheel_timer_tick_lag_seconds" + name)).isZero();
            assertThat(first.value("wheel_timer_pending_timeouts{name=\"auditTimer\"}"))
                    .isZero();
            assertThat(first.value("wheel_timer_scheduled_timeouts_total{name=\"auditTimer\"}"))
                    .isNotNegative();

            NamedTask quick = new NamedTask("quick");
            List<Timeout> far = new ArrayList<>();
            wheelTimer.newTimeout(quick, Duration.ofSeconds(1));
            wheelTimer.newTimeout(quick, Duration.ofMillis(1500));
            wheelTimer.newTimeout(
                    timeout -> {
                        throw new IllegalStateException("a failing task, on purpose");
                    },
                    Duration.ofSeconds(1));
            for (int i = 0; i < 3; i++) {
                far.add(wheelTimer.newTimeout(new NamedTask("far-" + i), Duration.ofHours(1 + i)));
            }
            try {
                Scrape scheduled = scrape();
                assertThat(scheduled.delta(first, "wheel_timer_scheduled_timeouts_total" + name))
                        .isEqualTo(6);
                assertThat(scheduled.value("wheel_timer_pending_timeouts" + name))
                        .isEqualTo(6);
                assertThat(scheduled.delta(first, "wheel_timer_expired_timeouts_total" + name))
                        .isZero();

                ticker.advance(Duration.ofMillis(1500));
                assertThat(quick.runs).hasValue(2);
                Scrape fired = scrape();
                assertThat(fired.delta(first, "wheel_timer_expired_timeouts_total" + name))
                        .isEqualTo(3);
                assertThat(fired.delta(first, "wheel_timer_failed_tasks_total" + name))
                        .isEqualTo(1);
                assertThat(fired.delta(first, "wheel_timer_lateness_seconds_count" + name))
                        .as("every fired one")
                        .isEqualTo(3);
                assertThat(fired.value("wheel_timer_pending_timeouts" + name)).isEqualTo(3);
                assertThat(fired.value("wheel_timer_tick_lag_seconds" + name)).isZero();

                far.get(0).cancel();
                far.get(1).cancel();
                Scrape cancelled = scrape();
                assertThat(cancelled.delta(first, "wheel_timer_cancelled_timeouts_total" + name))
                        .isEqualTo(2);
                assertThat(cancelled.value("wheel_timer_pending_timeouts" + name))
                        .isEqualTo(1);

                // wheel-timer.max-pending-timeouts=10: nine more fit, the tenth is refused.
                for (int i = 0; i < 9; i++) {
                    far.add(wheelTimer.newTimeout(new NamedTask("fill-" + i), Duration.ofMinutes(5)));
                }
                assertThatExceptionOfType(RejectedExecutionException.class)
                        .isThrownBy(() -> wheelTimer.newTimeout(new NamedTask("one-too-many"), Duration.ofMinutes(5)));
                Scrape rejected = scrape();
                assertThat(rejected.delta(first, "wheel_timer_rejected_timeouts_total" + name))
                        .isEqualTo(1);
                assertThat(rejected.delta(first, "wheel_timer_scheduled_timeouts_total" + name))
                        .isEqualTo(15);
                assertThat(rejected.value("wheel_timer_pending_timeouts" + name))
                        .isEqualTo(10);
                // The other timer's meters did not move.
                assertThat(rejected.delta(first, "wheel_timer_scheduled_timeouts_total{name=\"auditTimer\"}"))
                        .isZero();
            } finally {
                far.forEach(Timeout::cancel);
            }
            Scrape done = scrape();
            assertThat(done.value("wheel_timer_pending_timeouts" + name)).isZero();
            assertThat(done.delta(first, "wheel_timer_cancelled_timeouts_total" + name))
                    .isEqualTo(12);
        }

        @Test
        @Order(3)
        void theUserDefinedTimerHasItsOwnMetersTaggedByBeanName() {
            Scrape before = scrape();
            NamedTask task = new NamedTask("audit");
            auditTimer.newTimeout(task, Duration.ofMillis(200));
            ticker.advance(Duration.ofMillis(200));
            assertThat(task.runs).hasValue(1);

            Scrape after = scrape();
            assertThat(after.delta(before, "wheel_timer_scheduled_timeouts_total{name=\"auditTimer\"}"))
                    .isEqualTo(1);
            assertThat(after.delta(before, "wheel_timer_expired_timeouts_total{name=\"auditTimer\"}"))
                    .isEqualTo(1);
            assertThat(after.value("wheel_timer_pending_timeouts{name=\"auditTimer\"}"))
                    .isZero();
        }

        @Test
        @Order(Integer.MAX_VALUE)
        @DirtiesContext
        void healthIsDownOnceATimerIsStopped() {
            wheelTimer.newTimeout(new NamedTask("never-runs"), Duration.ofMinutes(1));
            assertThat(wheelTimer.stop()).hasSize(1);

            HttpResponse<String> response = http.get("/actuator/health");

            assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
            DocumentContext json = JsonPath.parse(response.body());
            assertThat(json.read("$.status", String.class)).isEqualTo("DOWN");
            assertThat(json.read("$.components.wheelTimer.status", String.class))
                    .isEqualTo("DOWN");
            assertThat(json.read("$.components.wheelTimer.components.wheelTimer.status", String.class))
                    .isEqualTo("DOWN");
            assertThat(json.read(
                            "$.components.wheelTimer.components.wheelTimer.details.wheelTimer.state", String.class))
                    .isEqualTo("SHUTDOWN");
            assertThat(json.read(
                            "$.components.wheelTimer.components.wheelTimer.details.wheelTimer.pending", Long.class))
                    .isZero();
            assertThat(json.read("$.components.wheelTimer.components.auditTimer.status", String.class))
                    .isEqualTo("UP");

            HttpResponse<String> one = http.get("/actuator/health/wheelTimer/wheelTimer");
            assertThat(one.statusCode()).as(one.body()).isEqualTo(503);
            assertThat(JsonPath.parse(one.body()).read("$.details.wheelTimer.state", String.class))
                    .isEqualTo("SHUTDOWN");

            Scrape scrape = scrape();
            assertThat(scrape.value("wheel_timer_pending_timeouts{name=\"wheelTimer\"}"))
                    .isZero();
        }

        private Scrape scrape() {
            HttpResponse<String> response = http.get("/actuator/prometheus");
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            return Scrape.parse(response.body());
        }
    }

    /** {@code management.health.wheeltimer.enabled=false}: no component; the endpoint stays. */
    @Nested
    @SpringBootTest(
            classes = TwoTimersOverHttp.App.class,
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                EXPOSE,
                "management.endpoint.health.show-details=always",
                "management.health.wheeltimer.enabled=false"
            })
    class WithHealthTurnedOff {

        @LocalServerPort
        int port;

        @Test
        void theHealthComponentIsGone() {
            ActuatorHttp http = new ActuatorHttp(port);
            HttpResponse<String> response = http.get("/actuator/health");

            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            DocumentContext json = JsonPath.parse(response.body());
            assertThat(json.read("$.status", String.class)).isEqualTo("UP");
            Map<String, Object> components = json.read("$.components");
            assertThat(components).isNotEmpty().doesNotContainKey("wheelTimer");
            assertThat(http.get("/actuator/health/wheelTimer").statusCode()).isEqualTo(404);
            assertThat(http.get("/actuator/wheeltimer/wheelTimer").statusCode()).isEqualTo(200);
        }
    }

    /** A Prometheus text scrape: sample values by {@code name{labels}}, and {@code # TYPE} by family. */
    static final class Scrape {
        private static final Pattern TYPE = Pattern.compile("# TYPE (\\S+) (\\S+)");
        private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{[^}]*\\})?) (\\S+).*");

        final String text;
        final Map<String, String> types = new LinkedHashMap<>();
        final Map<String, Double> samples = new LinkedHashMap<>();

        private Scrape(String text) {
            this.text = text;
        }

        static Scrape parse(String text) {
            Scrape scrape = new Scrape(text);
            for (String line : text.split("\n")) {
                Matcher type = TYPE.matcher(line);
                if (type.matches()) {
                    scrape.types.put(type.group(1), type.group(2));
                } else if (!line.startsWith("#") && !line.isBlank()) {
                    Matcher sample = SAMPLE.matcher(line);
                    if (sample.matches()) {
                        scrape.samples.put(sample.group(1), Double.parseDouble(sample.group(2)));
                    }
                }
            }
            return scrape;
        }

        double value(String series) {
            assertThat(samples).as("series %s in the scrape:%n%s", series, text).containsKey(series);
            return samples.get(series);
        }

        long delta(Scrape earlier, String series) {
            return Math.round(value(series) - earlier.value(series));
        }
    }
}
