package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/** The {@code durabletimeouts} endpoint with writes allowed and data shown, on H2. */
@SpringBootTest(
        classes = DurableTimeoutsEndpointHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:endpoint-unrestricted;DB_CLOSE_DELAY=-1",
            DurableTimeoutsEndpointTests.ACCESS,
            DurableTimeoutsEndpointTests.SHOW_DATA
        })
@DirtiesContext
class DurableTimeoutsEndpointH2Test extends DurableTimeoutsEndpointTests {}
