package io.wheeltimer.spring.autoconfigure.durable;

import static io.wheeltimer.spring.autoconfigure.durable.DurableApps.awaitHolding;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.spring.autoconfigure.ActuatorHttp;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What the durable tests over real HTTP share: the application's durable timer, holding what it
 * schedules before each test, and calls to its actuator.
 */
abstract class DurableHttpTests {

    @LocalServerPort
    int port;

    @Autowired
    JdbcDurableTimer timer;

    ActuatorHttp http;

    @BeforeEach
    void setUp() {
        http = new ActuatorHttp(port);
        awaitHolding(timer);
    }
}
