package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * What the tests of the timers' actuator views over real HTTP share: the auto-configured {@code
 * wheelTimer}, the application's own {@code auditTimer} beside it ({@link App}), the {@link
 * ManualTime} ticker both run on, and calls to the running server.
 */
abstract class TwoTimersOverHttp {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ManualTime.class)
    static class App {

        /**
         * A second timer of the application's own, with settings of its own. Not a default candidate,
         * so the auto-configured {@code wheelTimer} does not back off; the endpoint, the health and
         * the meters must still cover it by its bean name.
         */
        @Bean(defaultCandidate = false, destroyMethod = "stop")
        HashedWheelTimer auditTimer(ManualTicker ticker) {
            return HashedWheelTimer.builder()
                    .name("audit-timer")
                    .tickDuration(Duration.ofMillis(10))
                    .ticksPerWheel(64)
                    .maxPendingTimeouts(7)
                    .hierarchical(false)
                    .ticker(ticker)
                    .build();
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    HashedWheelTimer wheelTimer;

    @Autowired
    @Qualifier("auditTimer")
    HashedWheelTimer auditTimer;

    @Autowired
    ManualTicker ticker;

    ActuatorHttp http;

    @BeforeEach
    void setUp() {
        http = new ActuatorHttp(port);
    }
}
