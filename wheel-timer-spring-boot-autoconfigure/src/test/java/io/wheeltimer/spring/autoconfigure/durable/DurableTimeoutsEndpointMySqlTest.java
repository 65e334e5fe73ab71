package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The {@code durabletimeouts} endpoint with writes allowed and data shown, on MariaDB through MySQL Connector/J (the MySQL dialect). */
@SpringBootTest(
        classes = DurableTimeoutsEndpointHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {DurableTimeoutsEndpointTests.ACCESS, DurableTimeoutsEndpointTests.SHOW_DATA})
@DirtiesContext
class DurableTimeoutsEndpointMySqlTest extends DurableTimeoutsEndpointTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        DurableTimeoutsEndpointHttpTests.database(registry, Database.MYSQL);
    }
}
