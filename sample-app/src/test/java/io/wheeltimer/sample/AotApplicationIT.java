package io.wheeltimer.sample;

import static io.wheeltimer.sample.Api.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The jar that {@code package} built, started as an AOT-processed application on the JVM
 * ({@code -Dspring.aot.enabled=true}: the bean definitions generated at build time, not the
 * configuration classes), through the order flow over HTTP: an unpaid order cancelled by its durable
 * deadline, a paid one not, the payment's {@code @WheelTimeLimit}, the actuator endpoints and the
 * meters. Short windows make it run in seconds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AotApplicationIT {

    /** Long enough for a payment that first times out to be retried within it. */
    private static final Duration WINDOW = Duration.ofSeconds(4);

    private SampleProcess app;
    private Api api;

    /**
     * The actuator answers to check, each by a JSON path its body must have; another endpoint is one
     * more line (and its id in the sample's {@code management.endpoints.web.exposure.include}, which
     * AOT processing reads at build time).
     */
    static Stream<Answer> actuatorAnswers() {
        return Stream.of(
                new Answer("/actuator/wheeltimer", "$.timers.wheelTimer.state"),
                new Answer("/actuator/wheeltimer", "$.durable.instance"),
                new Answer("/actuator/wheeltimer/wheelTimer", "$.upcoming"),
                new Answer("/actuator/durabletimeouts", "$.instance"),
                new Answer("/actuator/durabletimeouts/order-payment?state=pending&limit=5", "$.timeouts"),
                new Answer("/actuator/health", "$.components.wheelTimer.details.wheelTimer.state"),
                new Answer("/actuator/health", "$.components.wheelTimerDurable.details.held"),
                new Answer("/actuator/metrics/wheel.timer.pending", "$.measurements[0].value"),
                new Answer("/actuator/metrics/wheel.timer.durable.held", "$.measurements[0].value"),
                new Answer("/actuator/prometheus", null));
    }

    /** An actuator path and a JSON path its answer must have (null: any 200). */
    record Answer(String path, String jsonPath) {}

    @BeforeAll
    void start() throws Exception {
        Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app.jar"));
        assertThat(jar).as("the jar that `package` builds").exists();
        app = SampleProcess.start(
                jar,
                Path.of("target", "aot-app"),
                List.of("-Dspring.aot.enabled=true", "-XX:TieredStopAtLevel=1"),
                List.of(
                        "orders.payment-window=" + WINDOW.toSeconds() + "s",
                        "orders.provider-latency=1s",
                        "orders.payment-timeout=200ms",
                        "wheel-timer.tick-duration=10ms"),
                Duration.ofSeconds(180)); // a busy 2-core machine
        api = new Api(app.port);
    }

    @AfterAll
    void stop() throws Exception {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void ranFromTheBuildTimeBeanDefinitions() throws Exception {
        assertThat(app.output()).contains("Starting AOT-processed SampleApplication");
    }

    @Test
    void unpaidOrderIsCancelledAtItsDurableDeadline() {
        String id = api.place("book");
        DocumentContext endpoint =
                JsonPath.parse(api.get("/actuator/wheeltimer").body());
        assertThat(endpoint.<List<String>>read("$.durable.tasks")).containsExactly("order-payment");

        await().atMost(Api.PATIENCE)
                .untilAsserted(() -> assertThat(api.status(id)).isEqualTo("CANCELLED"));
        await().atMost(Api.PATIENCE)
                .untilAsserted(
                        () -> assertThat(meter("wheel.timer.durable.fired")).isGreaterThanOrEqualTo(1));
    }

    @Test
    void paymentOverItsTimeLimitIs504AndItsRetryPays() throws Exception {
        String id = api.place("pen");
        // The provider takes 1 s, the limit is 200 ms: the @WheelTimeLimit proxy answers first.
        assertProblem(api.pay(id), 504, "still awaiting payment");
        assertThat(meter("wheel.timer.time.limit.exceeded")).isGreaterThanOrEqualTo(1);
        // The provider finishes the charge; a retry within the window takes it.
        await().atMost(Api.PATIENCE)
                .pollInterval(Duration.ofMillis(300))
                .untilAsserted(() -> assertThat(api.pay(id).statusCode()).isEqualTo(200));
        assertThat(api.status(id)).isEqualTo("PAID");

        Thread.sleep(WINDOW.toMillis()); // past its window: the deadline was cancelled with the payment
        assertThat(api.status(id)).isEqualTo("PAID");
        assertThat(meter("wheel.timer.durable.cancelled")).isGreaterThanOrEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("actuatorAnswers")
    void actuatorAnswersWithItsJson(Answer answer) {
        HttpResponse<String> response = api.get(answer.path());
        assertThat(response.statusCode())
                .as(answer.path() + ": " + response.body())
                .isEqualTo(200);
        if (answer.jsonPath() != null) {
            assertThat(JsonPath.parse(response.body()).<Object>read(answer.jsonPath()))
                    .as(answer.path() + " " + answer.jsonPath())
                    .isNotNull();
        }
    }

    @Test
    void theDashboardAnswersFromTheBuildTimeBeanDefinitions() {
        HttpResponse<String> page = api.get("/wheel-timer");
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        assertThat(page.body())
                .contains("data-testid=\"wheel\" data-name=\"wheelTimer\"")
                .contains("data-testid=\"durable-task\" data-task=\"order-payment\"");
        HttpResponse<String> script = api.get("/wheel-timer/assets/htmx.min.js");
        assertThat(script.statusCode()).isEqualTo(200);
        assertThat(script.body()).contains("htmx");
    }

    @Test
    void unknownTimerIsAProblem() {
        assertProblem(api.get("/actuator/wheeltimer/nope"), 404, "wheelTimer");
    }

    /** The sum of a meter's first measurement over its tags, as {@code /actuator/metrics} shows it. */
    private double meter(String name) {
        HttpResponse<String> response = api.get("/actuator/metrics/" + name);
        assertThat(response.statusCode()).as(name + ": " + response.body()).isEqualTo(200);
        return JsonPath.<Number>read(response.body(), "$.measurements[0].value").doubleValue();
    }
}
