package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.spring.autoconfigure.ActuatorHttp.NamedTask;
import io.wheeltimer.testing.ManualTicker;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;

/**
 * {@code POST /actuator/wheeltimer/{name}} with {@code management.endpoint.wheeltimer.access=unrestricted}.
 * Stopping is for good, so this context is closed after the class and shared with no other test.
 */
@SpringBootTest(
        classes = HttpEndpointStopTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=wheeltimer,health,prometheus",
            "management.endpoint.wheeltimer.access=unrestricted"
        })
@DirtiesContext
class HttpEndpointStopTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ManualTime.class)
    static class App {}

    @LocalServerPort
    int port;

    @Autowired
    HashedWheelTimer wheelTimer;

    @Autowired
    ManualTicker ticker;

    @Test
    void postStopsTheTimerOnceAndReportsWhatNeverRan() {
        ActuatorHttp http = new ActuatorHttp(port);
        NamedTask ran = new NamedTask("ran");
        NamedTask neverRuns = new NamedTask("never-runs");
        wheelTimer.newTimeout(ran, Duration.ofMillis(100));
        ticker.advance(Duration.ofMillis(100));
        assertThat(ran.runs).hasValue(1);
        Timeout cancelledEarlier = wheelTimer.newTimeout(neverRuns, Duration.ofMinutes(1));
        cancelledEarlier.cancel();
        List<Timeout> pending = List.of(
                wheelTimer.newTimeout(neverRuns, Duration.ofSeconds(1)),
                wheelTimer.newTimeout(neverRuns, Duration.ofMinutes(10)),
                wheelTimer.newTimeout(neverRuns, Duration.ofHours(10)));
        long pendingBefore = JsonPath.parse(
                        http.get("/actuator/wheeltimer/wheelTimer").body())
                .read("$.pending", Long.class);
        assertThat(pendingBefore).isEqualTo(3);

        HttpResponse<String> stop = http.post("/actuator/wheeltimer/wheelTimer");

        assertThat(stop.statusCode()).as(stop.body()).isEqualTo(200);
        DocumentContext stopped = JsonPath.parse(stop.body());
        Map<String, Object> body = stopped.read("$");
        assertThat(body).containsOnlyKeys("name", "state", "unprocessed");
        assertThat(body).containsEntry("name", "wheelTimer").containsEntry("state", "SHUTDOWN");
        assertThat(stopped.read("$.unprocessed", Long.class)).isEqualTo(pendingBefore);
        assertThat(wheelTimer.state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
        assertThat(pending)
                .allSatisfy(timeout -> assertThat(timeout.isCancelled()).isTrue());
        assertThat(neverRuns.cancellations).hasValue(4); // the one cancelled earlier, and the three by stop
        assertThat(neverRuns.runs).hasValue(0);
        assertThatIllegalStateException().isThrownBy(() -> wheelTimer.newTimeout(neverRuns, Duration.ofSeconds(1)));

        HttpResponse<String> again = http.post("/actuator/wheeltimer/wheelTimer");
        assertThat(again.statusCode()).isEqualTo(200);
        DocumentContext second = JsonPath.parse(again.body());
        assertThat(second.read("$.name", String.class)).isEqualTo("wheelTimer");
        assertThat(second.read("$.state", String.class)).isEqualTo("SHUTDOWN");
        assertThat(second.read("$.unprocessed", Long.class)).isZero();

        assertThat(http.post("/actuator/wheeltimer/nope").statusCode()).isEqualTo(404);

        DocumentContext after =
                JsonPath.parse(http.get("/actuator/wheeltimer/wheelTimer").body());
        assertThat(after.read("$.state", String.class)).isEqualTo("SHUTDOWN");
        assertThat(after.read("$.pending", Long.class)).isZero();
        assertThat(after.read("$.scheduled", Long.class)).isEqualTo(5);
        assertThat(after.read("$.expired", Long.class)).isEqualTo(1);
        assertThat(after.read("$.cancelled", Long.class)).isEqualTo(4);
        assertThat(after.read("$.tickLag", String.class)).isEqualTo("PT0S");
        assertThat(after.<List<Object>>read("$.upcoming")).isEmpty();
        DocumentContext list = JsonPath.parse(http.get("/actuator/wheeltimer").body());
        assertThat(list.read("$.timers.wheelTimer.state", String.class)).isEqualTo("SHUTDOWN");
    }

    @Test
    void postForAnUnknownTimerIsNotFoundAndStopsNothing() {
        ActuatorHttp http = new ActuatorHttp(port);
        HashedWheelTimer.State before = wheelTimer.state();

        assertThat(http.post("/actuator/wheeltimer/nope").statusCode()).isEqualTo(404);
        HttpResponse<String> response = http.post("/actuator/wheeltimer/wheelTimer2");
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(JsonPath.parse(response.body()).read("$.detail", String.class))
                .contains("'wheelTimer2'");
        assertThat(wheelTimer.state()).isEqualTo(before);
    }
}
