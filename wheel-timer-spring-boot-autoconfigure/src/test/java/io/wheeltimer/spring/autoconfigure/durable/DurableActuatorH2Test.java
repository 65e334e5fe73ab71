package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/** The actuator views of durable timeouts on H2, the zero-install default. */
@SpringBootTest(
        classes = DurableActuatorHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            DurableApps.WITH_DATA_SOURCE,
            "spring.datasource.url=jdbc:h2:mem:actuator;DB_CLOSE_DELAY=-1",
            "management.endpoints.web.exposure.include=wheeltimer,health",
            "management.endpoint.health.show-details=always",
            "wheel-timer.tick-duration=10ms",
            "wheel-timer.durable.poll-interval=100ms",
            "wheel-timer.durable.lookahead=3h",
            "wheel-timer.durable.lease=1s",
            "wheel-timer.durable.max-attempts=1",
            "wheel-timer.durable.instance-id=" + DurableActuatorHttpTests.INSTANCE
        })
@DirtiesContext
class DurableActuatorH2Test extends DurableActuatorHttpTests {}
