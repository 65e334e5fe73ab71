package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;

/**
 * Modules built on the timer add sections to {@code GET /actuator/wheeltimer} through
 * {@link WheelTimerEndpointContributor} beans: each is a field beside {@code timers}, in the beans'
 * order, read again on each request.
 */
@SpringBootTest(
        classes = HttpEndpointContributorTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "management.endpoints.web.exposure.include=wheeltimer")
class HttpEndpointContributorTest {

    record Reading(String source, int requests, List<String> names) {}

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        final AtomicInteger requests = new AtomicInteger();

        @Bean
        @Order(2)
        WheelTimerEndpointContributor second() {
            return new Contributor("second", () -> Map.of("ok", true));
        }

        @Bean
        @Order(1)
        WheelTimerEndpointContributor first() {
            return new Contributor(
                    "first", () -> new Reading("a record", requests.incrementAndGet(), List.of("x", "y")));
        }
    }

    record Contributor(String name, java.util.function.Supplier<Object> content)
            implements WheelTimerEndpointContributor {

        @Override
        public Object describe() {
            return content.get();
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    App app;

    @Test
    void eachContributorAddsASectionBesideTheTimersReadOnEachRequest() {
        HttpResponse<String> response = new ActuatorHttp(port).get("/actuator/wheeltimer");

        assertThat(response.statusCode()).isEqualTo(200);
        DocumentContext json = JsonPath.parse(response.body());
        Map<String, Object> root = json.read("$");
        assertThat(root.keySet()).containsExactly("timers", "first", "second");
        Map<String, Object> timers = json.read("$.timers");
        assertThat(timers).containsOnlyKeys("wheelTimer");
        assertThat(json.read("$.first.source", String.class)).isEqualTo("a record");
        List<String> names = json.read("$.first.names");
        assertThat(names).containsExactly("x", "y");
        assertThat(json.read("$.second.ok", Boolean.class)).isTrue();

        int before = app.requests.get();
        DocumentContext again = JsonPath.parse(
                new ActuatorHttp(port).get("/actuator/wheeltimer").body());
        assertThat(again.read("$.first.requests", Integer.class)).isEqualTo(before + 1);
    }
}
