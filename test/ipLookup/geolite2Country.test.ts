import { describeGeoLite2 } from './geolite2';

/** GeoLite2-Country.mmdb, a MaxMind file of another schema, read as stored: what mmdb-lib reads (see geolite2.ts). */
describeGeoLite2('GeoLite2-Country', 767);
