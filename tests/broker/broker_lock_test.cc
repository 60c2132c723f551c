#include "broker/consumer_fixture.h"
